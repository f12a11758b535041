/* The entity JSON functions as a binding would call them (public API only): every pair kept and
 * read back, the older object form, U+0000 and non-strings refused with their location, a byte-order
 * mark skipped; bk_edit_set_entities against caller-set limits and the engine's (warnings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"
#include "check.h"
#include "common/bk_internal.h"   /* bk_limits_of: where the defaults are filled in */

static bk_result from(const char *s, bk_entities *e, bk_diag *d)
{
    return bk_entities_from_json(s, strlen(s), e, d);
}

static int pair_is(const bk_entities *e, uint32_t i, uint32_t k, const char *key, const char *value)
{
    return i < e->count && k < e->items[i].pair_count && strcmp(e->items[i].pairs[k].key, key) == 0 &&
           strcmp(e->items[i].pairs[k].value, value) == 0;
}

static void test_round_trip(void)
{
    const char txt[] = "{\n\"classname\" \"logic_relay\"\n\"OnTrigger\" \"a,Open,,0,-1\"\n\"OnTrigger\" \"b,Open,,1,-1\"\n"
                       "\"tab\" \"x\ty\\\\z\"\n\"latin\" \"caf\xe9\"\n}\n{\n}\n";
    bk_entities t, j;
    uint64_t at = 0;
    CHECK(bk_entities_parse(txt, sizeof txt - 1, &t, &at) == BK_OK && t.count == 2);
    char *js = NULL;
    size_t n = 0;
    CHECK(bk_entities_to_json(&t, &js, &n) == BK_OK && js && strlen(js) == n);
    CHECK(js && strstr(js, "[\"OnTrigger\", \"a,Open,,0,-1\"],\n    [\"OnTrigger\", \"b,Open,,1,-1\"]"));
    CHECK(js && strstr(js, "[\"latin\", \"caf\xc3\xa9\"]"));   /* 8-bit text read as Latin-1 */
    bk_diag d;
    CHECK(js && bk_entities_from_json(js, n, &j, &d) == BK_OK);
    CHECK(j.count == 2 && j.items[0].pair_count == 5 && j.items[1].pair_count == 0);
    CHECK(pair_is(&j, 0, 1, "OnTrigger", "a,Open,,0,-1") && pair_is(&j, 0, 2, "OnTrigger", "b,Open,,1,-1"));
    CHECK(pair_is(&j, 0, 3, "tab", "x\ty\\\\z") && pair_is(&j, 0, 4, "latin", "caf\xc3\xa9"));
    CHECK(j.items[0].offset == 4 && js[j.items[1].offset] == '[');   /* where each entity starts */
    bk_entities_free(&j);
    bk_free(js);
    bk_entities_free(&t);
    bk_entities empty = {0};
    CHECK(bk_entities_to_json(&empty, &js, &n) == BK_OK && strcmp(js, "[]\n") == 0);
    bk_free(js);
}

static void test_reading(void)
{
    bk_entities e;
    bk_diag d;
    /* the older form: a repeated key as an array of strings, in order */
    CHECK(from("[{\"classname\": \"worldspawn\", \"On\": [\"1\", \"2\"], \"x\": \"0.1\"}]", &e, &d) == BK_OK);
    CHECK(e.count == 1 && e.items[0].pair_count == 4 && pair_is(&e, 0, 1, "On", "1") && pair_is(&e, 0, 2, "On", "2"));
    CHECK(pair_is(&e, 0, 3, "x", "0.1"));
    bk_entities_free(&e);
    /* a byte-order mark; "\\u0000" is a backslash and u0000 */
    CHECK(from("\xef\xbb\xbf[[[\"a\", \"x\\\\u0000\"]]]", &e, &d) == BK_OK && pair_is(&e, 0, 0, "a", "x\\u0000"));
    bk_entities_free(&e);
    CHECK(from("[]", &e, &d) == BK_OK && e.count == 0);
    /* refused, located */
    CHECK(from("[[[\"a\", \"x\\u0000y\"]]]", &e, &d) == BK_EFORMAT && d.offset == 10 && e.count == 0);
    CHECK(strstr(d.message, "line 1, column 11") && d.code == BK_EFORMAT && strcmp(d.lump, "entities") == 0);
    CHECK(from("[[[\"a\", \"b\"]],\n [[\"k\", \"v\"], [\"num\", 0.1]]]", &e, &d) == BK_EFORMAT);
    CHECK(d.index == 1 && d.offset == 29 && strstr(d.message, "line 2, column 15: key \"num\": the value is a number"));
    CHECK(from("[{\"a\": true}]", &e, &d) == BK_EFORMAT && d.index == 0 && strstr(d.message, "a boolean"));
    CHECK(from("[{\"a\": [\"1\", null]}]", &e, &d) == BK_EFORMAT && strstr(d.message, "null"));
    CHECK(from("[[[\"a\"]]]", &e, &d) == BK_EFORMAT && strstr(d.message, "pair 0"));
    CHECK(from("[7]", &e, &d) == BK_EFORMAT && d.offset == 1 && strstr(d.message, "entity 0 is a number"));
    CHECK(from("{}", &e, &d) == BK_EFORMAT && strstr(d.message, "an object: expected an array"));
    CHECK(from("[[]] x", &e, &d) == BK_EFORMAT && d.offset == 5);
    CHECK(from("[[], ", &e, &d) == BK_EFORMAT && d.index == BK_NO_INDEX);
    CHECK(from("[[[\"a\", \"\xff\"]]]", &e, &d) == BK_EFORMAT && strstr(d.message, "not UTF-8"));
    CHECK(bk_entities_from_json("[[]]\0", 5, &e, &d) == BK_EFORMAT && d.offset == 4);   /* a raw NUL */
    CHECK(bk_entities_from_json("[[]]", 4, &e, NULL) == BK_OK && e.count == 1);
    bk_entities_free(&e);
    /* the text form skips a byte-order mark too */
    uint64_t at;
    CHECK(bk_entities_parse("\xef\xbb\xbf{ \"a\" \"b\" }", 14, &e, &at) == BK_OK && pair_is(&e, 0, 0, "a", "b"));
    bk_entities_free(&e);
}

typedef struct seen {
    int errors, warnings;
    char last[512];
} seen;

static void on_diag(void *user, const bk_diag *d)
{
    seen *s = user;
    if (d->severity == BK_SEV_ERROR) s->errors++;
    if (d->severity == BK_SEV_WARNING) s->warnings++;
    bk_diag_format(d, s->last, sizeof s->last);
}

static void test_limits(const char *src_dir)
{
    bk_limits l = bk_limits_of(NULL);
    CHECK(l.max_entity_string == 65536 && l.max_entity_pairs == 8192 && l.max_entities == 65536);
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/bsp_tool_quake_mp_lobby.bsp", src_dir);   /* Quake 1 */
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        CHECK(!"sample opens");
        return;
    }
    seen s = {0};
    bk_options o;
    memset(&o, 0, sizeof o);
    o.diag = on_diag;
    o.diag_user = &s;
    o.limits.max_entity_pairs = 2;
    o.limits.max_entity_string = 8;
    o.limits.max_entities = 3;
    bk_edit *e = NULL;
    CHECK(bk_edit_begin(f, &o, &e) == BK_OK);
    bk_kv kv[3] = {{"classname", "worldspawn"}, {"a", "b"}, {"c", "d"}};
    bk_entity en[4] = {{kv, 3, 0}, {kv + 1, 1, 0}, {kv + 1, 1, 0}, {kv + 1, 1, 0}};
    bk_entities ents = {en, 4};
    CHECK(bk_edit_set_entities(e, &ents) == BK_ELIMIT && strstr(s.last, "4 entities, over bspkit's limit of 3"));
    ents.count = 3;
    CHECK(bk_edit_set_entities(e, &ents) == BK_ELIMIT && strstr(s.last, "entities[0]: error: 3 key/value pairs"));
    en[0].pair_count = 2;
    CHECK(bk_edit_set_entities(e, &ents) == BK_ELIMIT && strstr(s.last, "a key of 9 bytes, over bspkit's limit of 8"));
    o.limits.max_entity_string = 9;
    bk_edit_free(e);
    CHECK(bk_edit_begin(f, &o, &e) == BK_OK);
    CHECK(bk_edit_set_entities(e, &ents) == BK_ELIMIT && strstr(s.last, "a value of 10 bytes, over bspkit's limit of 9"));
    o.limits.max_entity_string = 0;
    bk_edit_free(e);
    /* Quake's own limits warn: a 256-byte key, a 1024-byte value */
    char key[257], val[1025];
    memset(key, 'k', 256), key[256] = 0;
    memset(val, 'v', 1024), val[1024] = 0;
    bk_kv big[2] = {{"classname", "worldspawn"}, {key, val}};
    bk_entity one = {big, 2, 0};
    bk_entities ents1 = {&one, 1};
    s.errors = s.warnings = 0;
    CHECK(bk_edit_begin(f, &o, &e) == BK_OK && bk_edit_set_entities(e, &ents1) == BK_OK);
    CHECK(s.errors == 0 && s.warnings == 2 && strstr(s.last, "a value of 1024 bytes, over Quake's limit of 1023"));
    bk_edit_free(e);
    bk_file_free(f);
}

/* bk_output_parse: both separators, empty fields, what is not an output */
static void test_outputs(void)
{
    bk_output o;
    CHECK(bk_output_parse("door1,Open,,0,-1", &o) == BK_OK && strcmp(o.target, "door1") == 0 &&
          strcmp(o.input, "Open") == 0 && o.parameter[0] == 0 && o.delay == 0 && o.times == -1);
    bk_output_free(&o);
    CHECK(o.target == NULL);
    /* ESC between the fields: commas belong to the parameter */
    CHECK(bk_output_parse("cam\033SetParam\0331,2,3\033.25\0332", &o) == BK_OK && strcmp(o.parameter, "1,2,3") == 0 &&
          o.delay == 0.25 && o.times == 2);
    bk_output_free(&o);
    CHECK(bk_output_parse("t,i,p,,", &o) == BK_OK && o.delay == 0 && o.times == -1);
    bk_output_free(&o);
    CHECK(bk_output_parse("t,i,p,1e1,0", &o) == BK_OK && o.delay == 10 && o.times == 0 && !o.bloodlines &&
          o.script[0] == 0 && o.extra[0] == 0);
    bk_output_free(&o);
    /* Vampire: The Masquerade - Bloodlines: a Python statement and a seventh field after times */
    CHECK(bk_output_parse("newplayer,Toggle,,0,1,ccmd.createplayer,", &o) == BK_OK && o.bloodlines &&
          strcmp(o.target, "newplayer") == 0 && strcmp(o.input, "Toggle") == 0 && o.parameter[0] == 0 &&
          o.times == 1 && strcmp(o.script, "ccmd.createplayer") == 0 && o.extra[0] == 0);
    bk_output_free(&o);
    CHECK(bk_output_parse(",,,0,-1,G.Story_State = -5,x", &o) == BK_OK && strcmp(o.script, "G.Story_State = -5") == 0 &&
          strcmp(o.extra, "x") == 0);
    bk_output_free(&o);
    static const char *no[] = {"", "255 255 255 200", "a,b,c,d", "a,b,c,d,e,f", "a,b,c,x,1", "a,b,c,1,1.5",
                               "a,b,c,1,9999999999", "a\033b\033c\0331", "a,b,c,1e,1", "a,b,c,1,1 ",
                               "a,b,c,1,1,s,e,x", "a\033b\033c\0331\0331\033s\033e", "a,b,c,x,1,s,e"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        CHECK(bk_output_parse(no[i], &o) == BK_ENOTFOUND && o.target == NULL);
    }
    CHECK(bk_output_parse(NULL, &o) == BK_ENOTFOUND);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    test_round_trip();
    test_reading();
    test_limits(SOURCE_DIR);
    test_outputs();
    return CHECK_DONE();
}
