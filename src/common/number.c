/* Numbers in text, read and written the same way whatever the process's locale (a program that
 * embeds bspkit may have set LC_NUMERIC to a locale whose decimal point is a comma; entity values,
 * shader scripts and the glTF / OBJ / JSON output always use '.').
 *
 * Reading: [space][+|-]digits[.digits][(e|E)[+|-]digits], the forms the engines' atof accepts
 * (no hex, inf or nan). The first 19 significant digits make an integer mantissa; mantissa and
 * power of ten are exact doubles for |exponent| <= 22 (one rounding, so correctly rounded there),
 * and within an ulp or two beyond, which is far below float precision, where every value ends up. */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>

#include "bk_internal.h"

int bk_fmt_num(char *buf, size_t size, double v, int precision);

static const double k_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static double scale10(double m, long e)
{
    if (m == 0) return m;
    while (e > 22) {
        m *= 1e22;
        e -= 22;
        if (isinf(m)) return m;
    }
    while (e < -22) {
        m /= 1e22;
        e += 22;
        if (m == 0) return m;
    }
    return e >= 0 ? m * k_pow10[e] : m / k_pow10[-e];
}

double bk_strtod(const char *s, const char **end)
{
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) p++;
    bool neg = false;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    uint64_t mant = 0;
    int sig = 0;       /* significant digits taken into mant */
    long exp10 = 0;    /* decimal exponent of mant's last digit */
    bool any = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        any = true;
        if (sig < 19) {
            if (mant || *p != '0') {
                mant = mant * 10 + (uint64_t)(*p - '0');
                sig++;
            }
        } else {
            exp10++;
        }
    }
    if (*p == '.') {
        const char *q = p + 1;
        for (; *q >= '0' && *q <= '9'; q++) {
            any = true;
            if (sig < 19) {
                if (mant || *q != '0') {
                    mant = mant * 10 + (uint64_t)(*q - '0');
                    sig++;
                }
                exp10--;
            }
        }
        if (any) p = q;
    }
    if (!any) {
        if (end) *end = s;
        return 0.0;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        bool eneg = false;
        if (*q == '+' || *q == '-') eneg = *q++ == '-';
        if (*q >= '0' && *q <= '9') {
            long e = 0;
            for (; *q >= '0' && *q <= '9'; q++)
                if (e < 100000) e = e * 10 + (*q - '0');
            exp10 += eneg ? -e : e;
            p = q;
        }
    }
    if (end) *end = p;
    double v = scale10((double)mant, exp10);
    return neg ? -v : v;
}

int bk_parse_floats(const char *s, float *out, int n)
{
    if (!s) return 0;
    int got = 0;
    while (got < n) {
        const char *end;
        double d = bk_strtod(s, &end);
        if (end == s || !isfinite(d) || d > 3.4e38 || d < -3.4e38) break;
        out[got++] = (float)d;
        s = end;
    }
    return got;
}

bool bk_parse_vec3(const char *s, float out[3])
{
    float v[3];
    if (bk_parse_floats(s, v, 3) != 3) return false;
    memcpy(out, v, sizeof v);
    return true;
}

int bk_fmt_nums(char *buf, size_t size, const float *v, int n, int precision)
{
    size_t at = 0;
    if (size) buf[0] = 0;
    for (int k = 0; k < n && at + 1 < size; k++) {
        if (k) buf[at++] = ' ';
        buf[at] = 0;
        int w = bk_fmt_num(buf + at, size - at, v[k], precision);
        if (w < 0) break;
        at += (size_t)w < size - at ? (size_t)w : size - at - 1;
    }
    return (int)at;
}

/* %.{precision}g of a float-valued v, exactly as the C library writes it ("." whatever the locale),
 * without printf: the value is m * 2^k (m < 2^24), rounded to `precision` significant digits in
 * 128-bit integers, ties to even on the exact binary value as glibc does. -1 when out of its
 * range (the caller falls back to snprintf). */
static int fmt_float_g(char *buf, double v, int p)
{
    if (p < 1 || p > 9 || (double)(float)v != v) return -1;
    if (v == 0) return snprintf(buf, 4, signbit(v) ? "-0" : "0");
    static const uint64_t k_p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                     1000000000, 10000000000ull, 100000000000ull, 1000000000000ull,
                                     10000000000000ull, 100000000000000ull, 1000000000000000ull,
                                     10000000000000000ull, 100000000000000000ull, 1000000000000000000ull};
    bool neg = v < 0;
    /* v = m * 2^k from the float's own bits (no frexp / ldexp) */
    float fa = (float)(neg ? -v : v);
    uint32_t bits;
    memcpy(&bits, &fa, sizeof bits);
    uint32_t be = (bits >> 23) & 0xff;
    uint64_t m = be ? (bits & 0x7fffffu) | 0x800000u : bits & 0x7fffffu;
    int k = be ? (int)be - 150 : -149;
    /* the decimal exponent, from the binary one (off by at most one: the loop corrects it) */
    int e2 = k + 64 - __builtin_clzll(m);   /* m > 0: v == 0 returned above */
    int x = (int)floor((e2 - 1) * 0.30102999566398120);
    uint64_t n = 0;
    for (int tries = 0;; tries++) {
        if (tries > 3) return -1;
        int s = p - 1 - x;
        unsigned __int128 num = m, den = 1;
        if (s >= 0) {
            if (s > 36) return -1;
            for (int t = s; t > 0; t -= 18) num *= k_p10[t > 18 ? 18 : t];
        } else {
            if (-s > 36) return -1;
            for (int t = -s; t > 0; t -= 18) den *= k_p10[t > 18 ? 18 : t];
        }
        if (k >= 0) {
            if (k > 40) return -1;
            num <<= k;
        } else {
            if (-k > 60) return -1;
            den <<= -k;
        }
        if (num >> 120 || den >> 120) return -1;
        unsigned __int128 q, r;
        if (!(num >> 64) && !(den >> 64)) { /* most vertices: one 64-bit division */
            q = (uint64_t)num / (uint64_t)den;
            r = (uint64_t)num % (uint64_t)den;
        } else {
            q = num / den;
            r = num % den;
        }
        if (2 * r > den || (2 * r == den && (q & 1))) q++;
        if (q >= k_p10[p]) { x++; continue; }
        if (q < k_p10[p - 1]) { x--; continue; }
        n = (uint64_t)q;
        break;
    }
    char d[10];
    for (int i = p - 1; i >= 0; i--) d[i] = (char)('0' + n % 10), n /= 10;
    int nd = p;
    while (nd > 1 && d[nd - 1] == '0') nd--; /* %g drops trailing zeros */
    char *o = buf;
    if (neg) *o++ = '-';
    if (x < -4 || x >= p) {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++) *o++ = d[i];
        if (nd > x + 1) {
            *o++ = '.';
            memcpy(o, d + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = -1; i > x; i--) *o++ = '0';
        memcpy(o, d, (size_t)nd);
        o += nd;
    }
    *o = 0;
    return (int)(o - buf);
}

int bk_fmt_num(char *buf, size_t size, double v, int precision)
{
    if (!isfinite(v)) v = 0; /* JSON, OBJ and entity text have no spelling for these */
    char t[32];
    int fast = fmt_float_g(t, v, precision); /* the OBJ writer's vertices: printf was most of its time */
    if (fast >= 0 && (size_t)fast < size) {
        memcpy(buf, t, (size_t)fast + 1);
        return fast;
    }
    int n = snprintf(buf, size, "%.*g", precision, v);
    /* the C library writes the locale's decimal point: make it '.' */
    const char *dp = localeconv()->decimal_point;
    if (dp && (dp[0] != '.' || dp[1] != 0) && dp[0] && size) {
        size_t dl = strlen(dp);
        char *at = strstr(buf, dp);
        if (at) {
            *at = '.';
            memmove(at + 1, at + dl, strlen(at + dl) + 1);
            n -= (int)dl - 1;
        }
    }
    return n;
}

/* A number as cJSON prints one, so a glTF's JSON is the same whichever writes a part: 15
 * significant digits, or 17 when 15 do not read back (integers, -0 too, come out as they are);
 * "null" for NaN and infinities; '.' whatever the locale. */
void bk_json_num(bk_buf *b, double d)
{
    char t[40];
    int n;
    if (isnan(d) || isinf(d)) {
        n = snprintf(t, sizeof t, "null");
    } else if (fabs(d) < 1e15 && d == floor(d)) { /* what %1.15g prints for these, faster */
        n = d == 0 && signbit(d) ? snprintf(t, sizeof t, "-0") : snprintf(t, sizeof t, "%lld", (long long)d);
    } else {
        n = snprintf(t, sizeof t, "%1.15g", d);
        double back = 0;
        if (sscanf(t, "%lg", &back) != 1 || !(fabs(back - d) <= fmax(fabs(back), fabs(d)) * DBL_EPSILON))
            n = snprintf(t, sizeof t, "%1.17g", d);
        for (int i = 0; i < n; i++)
            if (!(t[i] >= '0' && t[i] <= '9') && t[i] != '-' && t[i] != '+' && t[i] != 'e') t[i] = '.';
    }
    if (n > 0 && (size_t)n < sizeof t) bk_buf_append(b, t, (size_t)n);
}

/* A string as cJSON prints one: quoted; '"', '\\' and the control characters escaped (\b \f \n \r
 * \t, others \u00xx); every other byte as it is. */
void bk_json_str(bk_buf *b, const char *s)
{
    bk_buf_append(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s, *run = p;
    for (; *p; p++) {
        if (*p > 31 && *p != '"' && *p != '\\') continue;
        bk_buf_append(b, run, (size_t)(p - run));
        run = p + 1;
        char e[8];
        int n = 2;
        e[0] = '\\';
        switch (*p) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        default: n = snprintf(e + 1, sizeof e - 1, "u%04x", *p) + 1; break;
        }
        bk_buf_append(b, e, (size_t)n);
    }
    bk_buf_append(b, run, (size_t)(p - run));
    bk_buf_append(b, "\"", 1);
}
