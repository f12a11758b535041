// The one C++ file of bspkit: Recast builds the tiles, Detour holds and searches them. Behind the
// C interface of nav_shim.h, so the rest of the library stays C11. The calls follow the order
// Recast.h documents for a solo tile (heightfield, filters, compact heightfield, erosion, regions,
// contours, polygon mesh, detail mesh) and DetourNavMeshBuilder.h's dtCreateNavMeshData.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <vector>

#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/DetourNavMeshQuery.h>
#include <recastnavigation/Recast.h>

#include "nav_shim.h"

struct bk_nav_shim {
    dtNavMesh *nav = nullptr;
    dtNavMeshQuery *query = nullptr;
};

namespace {

// the Recast objects of one tile, freed however the tile ends
struct tile_build {
    rcHeightfield *hf = nullptr;
    rcCompactHeightfield *chf = nullptr;
    rcContourSet *cset = nullptr;
    rcPolyMesh *pmesh = nullptr;
    rcPolyMeshDetail *dmesh = nullptr;
    ~tile_build()
    {
        rcFreeHeightField(hf);
        rcFreeCompactHeightfield(chf);
        rcFreeContourSet(cset);
        rcFreePolyMesh(pmesh);
        rcFreePolyMeshDetail(dmesh);
    }
};

unsigned next_pow2(unsigned v)
{
    unsigned p = 1;
    while (p < v && p < 0x80000000u) p <<= 1;
    return p;
}

unsigned ilog2(unsigned v)
{
    unsigned r = 0;
    while ((1u << r) < v) r++;
    return r;
}

// 0, or -2 out of memory / -3 a limit, with err set
struct col_span {
    int col;
    int smin, smax;
    unsigned char area;
};

// one convex solid's spans: in each column whose centre it covers, from its lowest to its highest
// point there, walkable when the plane on top is a floor and not the world's lid
void fill_piece(const rcHeightfield &hf, const bk_nav_shim_input *in, int pi, float walk_ny, float lid,
                std::vector<col_span> &out)
{
    const float *box = &in->box[pi * 4];
    const float *pl = &in->planes[in->first[pi] * 4];
    int n = in->count[pi];
    int x0 = (int)floorf((box[0] - hf.bmin[0]) / hf.cs), x1 = (int)floorf((box[2] - hf.bmin[0]) / hf.cs);
    int z0 = (int)floorf((box[1] - hf.bmin[2]) / hf.cs), z1 = (int)floorf((box[3] - hf.bmin[2]) / hf.cs);
    x0 = x0 < 0 ? 0 : x0, z0 = z0 < 0 ? 0 : z0;
    x1 = x1 >= hf.width ? hf.width - 1 : x1, z1 = z1 >= hf.height ? hf.height - 1 : z1;
    for (int z = z0; z <= z1; z++)
        for (int x = x0; x <= x1; x++) {
            float px = hf.bmin[0] + ((float)x + 0.5f) * hf.cs, pz = hf.bmin[2] + ((float)z + 0.5f) * hf.cs;
            float lo = -1e30f, hi = 1e30f, top_ny = 0;
            bool in_col = true;
            for (int k = 0; k < n && in_col; k++) {
                const float *p = &pl[k * 4];
                float rest = p[3] - p[0] * px - p[2] * pz;
                if (p[1] > 1e-6f) {
                    float y = rest / p[1];
                    if (y < hi) hi = y, top_ny = p[1];
                } else if (p[1] < -1e-6f) {
                    float y = rest / p[1];
                    if (y > lo) lo = y;
                } else if (rest < 0) {
                    in_col = false;
                }
            }
            if (!in_col || lo >= hi || lo < -1e29f || hi > 1e29f) continue;
            float fl = (lo - hf.bmin[1]) / hf.ch, fh = (hi - hf.bmin[1]) / hf.ch;
            if (fh < 0 || fl > (float)RC_SPAN_MAX_HEIGHT) continue;
            int smin = fl < 0 ? 0 : (int)floorf(fl), smax = fh > (float)RC_SPAN_MAX_HEIGHT ? RC_SPAN_MAX_HEIGHT : (int)ceilf(fh);
            if (smax <= smin) smax = smin + 1;
            if (smax > RC_SPAN_MAX_HEIGHT) continue;
            unsigned char area = (top_ny >= walk_ny && hi < lid) ? RC_WALKABLE_AREA : RC_NULL_AREA;
            out.push_back(col_span{z * hf.width + x, smin, smax, area});
        }
}

// The solids' spans, joined per column before they reach the heightfield: a joined span is a
// floor when the solid whose top is its top is one (rcAddSpan would let a floor buried under
// another solid win when the two meet)
void add_solids(rcContext *ctx, rcHeightfield &hf, std::vector<col_span> &v, int merge)
{
    // by column (a counting sort: the columns are few and known), then by height within one
    std::vector<int> start((size_t)hf.width * (size_t)hf.height + 1, 0);
    for (const col_span &c : v) start[(size_t)c.col + 1]++;
    for (size_t i = 1; i < start.size(); i++) start[i] += start[i - 1];
    std::vector<col_span> by(v.size());
    {
        std::vector<int> at(start.begin(), start.end() - 1);
        for (const col_span &c : v) by[(size_t)at[(size_t)c.col]++] = c;
    }
    for (size_t col = 0; col + 1 < start.size(); col++) {
        col_span *b = by.data() + start[col], *e = by.data() + start[col + 1];
        if (b == e) continue;
        if (e - b > 1) std::sort(b, e, [](const col_span &x, const col_span &y) { return x.smin < y.smin; });
        col_span *i = b;
        while (i < e) {
            col_span cur = *i++;
            while (i < e && i->smin <= cur.smax) {
                const col_span &nx = *i++;
                if (nx.smax > cur.smax) {
                    cur.area = nx.area;
                    cur.smax = nx.smax;
                } else if (nx.smax == cur.smax) {
                    cur.area = std::max(cur.area, nx.area);
                }
            }
            rcAddSpan(ctx, hf, cur.col % hf.width, cur.col / hf.width, (unsigned short)cur.smin,
                      (unsigned short)cur.smax, cur.area, merge);
        }
    }
}

int build_tile(rcContext *ctx, const bk_nav_shim_cfg *c, const rcConfig &base, int tx, int tz,
               const bk_nav_shim_input *in, const std::vector<int> &tris, const std::vector<unsigned char> &areas,
               const std::vector<int> &pieces, dtNavMesh *nav, bk_nav_shim_stats *st, char *err, size_t cap)
{
    rcConfig cfg = base;
    float ts = (float)cfg.tileSize * cfg.cs;
    cfg.bmin[0] = c->bmin[0] + (float)tx * ts;
    cfg.bmin[1] = c->bmin[1];
    cfg.bmin[2] = c->bmin[2] + (float)tz * ts;
    cfg.bmax[0] = cfg.bmin[0] + ts;
    cfg.bmax[1] = c->bmax[1];
    cfg.bmax[2] = cfg.bmin[2] + ts;
    cfg.bmin[0] -= (float)cfg.borderSize * cfg.cs;
    cfg.bmin[2] -= (float)cfg.borderSize * cfg.cs;
    cfg.bmax[0] += (float)cfg.borderSize * cfg.cs;
    cfg.bmax[2] += (float)cfg.borderSize * cfg.cs;
    tile_build b;
    const char *step = "heightfield";
    b.hf = rcAllocHeightfield();
    if (!b.hf || !rcCreateHeightfield(ctx, *b.hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)) goto oom;
    if (!areas.empty() &&
        !rcRasterizeTriangles(ctx, in->verts, in->nverts, tris.data(), areas.data(), (int)areas.size(), *b.hf, cfg.walkableClimb)) {
        step = "rasterising";
        goto oom;
    }
    {
        std::vector<col_span> spans;
        for (int pi : pieces) fill_piece(*b.hf, in, pi, cosf(c->slope / 180.0f * RC_PI), c->lid, spans);
        add_solids(ctx, *b.hf, spans, 0);
    }
    rcFilterLowHangingWalkableObstacles(ctx, cfg.walkableClimb, *b.hf);
    rcFilterLedgeSpans(ctx, cfg.walkableHeight, cfg.walkableClimb, *b.hf);
    rcFilterWalkableLowHeightSpans(ctx, cfg.walkableHeight, *b.hf);
    step = "compact heightfield";
    b.chf = rcAllocCompactHeightfield();
    if (!b.chf || !rcBuildCompactHeightfield(ctx, cfg.walkableHeight, cfg.walkableClimb, *b.hf, *b.chf)) goto oom;
    rcFreeHeightField(b.hf);
    b.hf = nullptr;
    if (!b.chf->spanCount) return 0;
    step = "erosion";
    if (!rcErodeWalkableArea(ctx, cfg.walkableRadius, *b.chf)) goto oom;
    step = "distance field";
    if (!rcBuildDistanceField(ctx, *b.chf)) goto oom;
    step = "regions";
    if (!rcBuildRegions(ctx, *b.chf, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea)) goto oom;
    step = "contours";
    b.cset = rcAllocContourSet();
    if (!b.cset || !rcBuildContours(ctx, *b.chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *b.cset)) goto oom;
    if (!b.cset->nconts) return 0;
    step = "polygon mesh";
    b.pmesh = rcAllocPolyMesh();
    if (!b.pmesh || !rcBuildPolyMesh(ctx, *b.cset, cfg.maxVertsPerPoly, *b.pmesh)) goto oom;
    step = "detail mesh";
    b.dmesh = rcAllocPolyMeshDetail();
    if (!b.dmesh || !rcBuildPolyMeshDetail(ctx, *b.pmesh, *b.chf, cfg.detailSampleDist, cfg.detailSampleMaxError, *b.dmesh))
        goto oom;
    if (!b.pmesh->npolys) return 0;
    if (b.pmesh->nverts >= 0xffff) {
        snprintf(err, cap, "tile %d,%d: %d vertices, more than a Detour tile holds (65535)", tx, tz, b.pmesh->nverts);
        return -3;
    }
    for (int i = 0; i < b.pmesh->npolys; i++)
        if (b.pmesh->areas[i] == RC_WALKABLE_AREA) b.pmesh->flags[i] = 1;
    {
        dtNavMeshCreateParams p;
        memset(&p, 0, sizeof p);
        p.verts = b.pmesh->verts;
        p.vertCount = b.pmesh->nverts;
        p.polys = b.pmesh->polys;
        p.polyAreas = b.pmesh->areas;
        p.polyFlags = b.pmesh->flags;
        p.polyCount = b.pmesh->npolys;
        p.nvp = b.pmesh->nvp;
        p.detailMeshes = b.dmesh->meshes;
        p.detailVerts = b.dmesh->verts;
        p.detailVertsCount = b.dmesh->nverts;
        p.detailTris = b.dmesh->tris;
        p.detailTriCount = b.dmesh->ntris;
        p.walkableHeight = c->height;
        p.walkableRadius = c->radius;
        p.walkableClimb = c->climb;
        p.tileX = tx;
        p.tileY = tz;
        p.tileLayer = 0;
        rcVcopy(p.bmin, b.pmesh->bmin);
        rcVcopy(p.bmax, b.pmesh->bmax);
        p.cs = cfg.cs;
        p.ch = cfg.ch;
        p.buildBvTree = true;
        unsigned char *data = nullptr;
        int size = 0;
        if (!dtCreateNavMeshData(&p, &data, &size)) {
            snprintf(err, cap, "tile %d,%d: Detour refused its %d polygons", tx, tz, b.pmesh->npolys);
            return -3;
        }
        dtStatus s = nav->addTile(data, size, DT_TILE_FREE_DATA, 0, nullptr);
        if (dtStatusFailed(s)) {
            dtFree(data);
            snprintf(err, cap, "tile %d,%d: %d polygons do not fit the navmesh (%s)", tx, tz, b.pmesh->npolys,
                     (s & DT_OUT_OF_MEMORY) ? "out of memory" : "too many tiles or polygons");
            return (s & DT_OUT_OF_MEMORY) ? -2 : -3;
        }
    }
    st->tiles++;
    st->polys += (uint32_t)b.pmesh->npolys;
    st->verts += (uint32_t)b.pmesh->nverts;
    if ((uint32_t)b.pmesh->npolys > st->max_tile_polys) st->max_tile_polys = (uint32_t)b.pmesh->npolys;
    return 0;
oom:
    snprintf(err, cap, "tile %d,%d: Recast ran out of memory (%s)", tx, tz, step);
    return -2;
}

}  // namespace

// Recast's configuration for the agent and the tiles
static rcConfig tile_config(const bk_nav_shim_cfg *c)
{
    rcConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cs = c->cell_size;
    cfg.ch = c->cell_height;
    cfg.walkableSlopeAngle = c->slope;
    cfg.walkableHeight = (int)ceilf(c->height / cfg.ch);
    cfg.walkableClimb = (int)floorf(c->climb / cfg.ch);
    cfg.walkableRadius = (int)ceilf(c->radius / cfg.cs);
    cfg.maxEdgeLen = (int)(12.0f * c->radius / cfg.cs);
    cfg.maxSimplificationError = 1.3f;
    cfg.minRegionArea = 8 * 8;
    cfg.mergeRegionArea = 20 * 20;
    cfg.maxVertsPerPoly = DT_VERTS_PER_POLYGON;
    cfg.tileSize = c->tile_cells;
    cfg.borderSize = cfg.walkableRadius + 3;
    cfg.width = cfg.tileSize + cfg.borderSize * 2;
    cfg.height = cfg.tileSize + cfg.borderSize * 2;
    cfg.detailSampleDist = cfg.cs * 6.0f;
    cfg.detailSampleMaxError = cfg.ch * 1.0f;
    return cfg;
}

// which solids and triangles reach each tile (by their bounds across, with the border), and the
// tiles that can hold a walkable span (a floor of a solid, or a walkable triangle, reaches them)
struct tile_bins {
    std::vector<std::vector<int>> tris, pieces;
    std::vector<char> live;
};

static unsigned bin_tiles(const bk_nav_shim_input *in, const bk_nav_shim_cfg *c, const rcConfig &cfg, int tw, int th,
                          const std::vector<unsigned char> &area, tile_bins &b, bk_nav_shim_stats *st)
{
    const float *verts = in->verts;
    const int *tris = in->tris;
    int ntris = in->ntris;
    b.tris.assign((size_t)tw * (size_t)th, std::vector<int>());
    b.pieces.assign((size_t)tw * (size_t)th, std::vector<int>());
    b.live.assign(b.tris.size(), 0);
    std::vector<std::vector<int>> &bins = b.tris, &pbins = b.pieces;
    std::vector<char> &live = b.live;
    float ts = (float)cfg.tileSize * cfg.cs, border = (float)cfg.borderSize * cfg.cs;
    float walk_ny = cosf(c->slope / 180.0f * RC_PI);
    for (int pi = 0; pi < in->npieces; pi++) {
        const float *box = &in->box[pi * 4];
        bool floor = false;
        for (int k = 0; k < in->count[pi]; k++) floor = floor || in->planes[(in->first[pi] + k) * 4 + 1] >= walk_ny;
        int x0 = (int)floorf((box[0] - border - c->bmin[0]) / ts), x1 = (int)floorf((box[2] + border - c->bmin[0]) / ts);
        int z0 = (int)floorf((box[1] - border - c->bmin[2]) / ts), z1 = (int)floorf((box[3] + border - c->bmin[2]) / ts);
        x0 = x0 < 0 ? 0 : x0, z0 = z0 < 0 ? 0 : z0;
        x1 = x1 >= tw ? tw - 1 : x1, z1 = z1 >= th ? th - 1 : z1;
        for (int z = z0; z <= z1; z++)
            for (int x = x0; x <= x1; x++) {
                pbins[(size_t)z * (size_t)tw + (size_t)x].push_back(pi);
                if (floor) live[(size_t)z * (size_t)tw + (size_t)x] = 1;
            }
    }
    for (int t = 0; t < ntris; t++) {
        float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
        for (int k = 0; k < 3; k++) {
            const float *v = &verts[tris[t * 3 + k] * 3];
            lo[0] = fminf(lo[0], v[0]), hi[0] = fmaxf(hi[0], v[0]);
            lo[1] = fminf(lo[1], v[2]), hi[1] = fmaxf(hi[1], v[2]);
        }
        if (area[(size_t)t]) st->walkable_tris++;
        int x0 = (int)floorf((lo[0] - border - c->bmin[0]) / ts), x1 = (int)floorf((hi[0] + border - c->bmin[0]) / ts);
        int z0 = (int)floorf((lo[1] - border - c->bmin[2]) / ts), z1 = (int)floorf((hi[1] + border - c->bmin[2]) / ts);
        x0 = x0 < 0 ? 0 : x0, z0 = z0 < 0 ? 0 : z0;
        x1 = x1 >= tw ? tw - 1 : x1, z1 = z1 >= th ? th - 1 : z1;
        for (int z = z0; z <= z1; z++)
            for (int x = x0; x <= x1; x++) bins[(size_t)z * (size_t)tw + (size_t)x].push_back(t);
    }
    unsigned used = 0;
    for (size_t i = 0; i < bins.size(); i++) {
        for (int t : bins[i])
            if (area[(size_t)t]) {
                live[i] = 1;
                break;
            }
        used += live[i] ? 1 : 0;
    }
    return used;
}

extern "C" int bk_nav_shim_build(const bk_nav_shim_input *in, const bk_nav_shim_cfg *c, bk_nav_shim **out,
                                 bk_nav_shim_stats *st, char *err, size_t cap)
{
    const float *verts = in->verts;
    const int *tris = in->tris;
    int nverts = in->nverts, ntris = in->ntris;
    *out = nullptr;
    memset(st, 0, sizeof *st);
    rcContext ctx(false);
    rcConfig cfg = tile_config(c);
    int gw = 0, gh = 0;
    rcCalcGridSize(c->bmin, c->bmax, cfg.cs, &gw, &gh);
    int tw = (gw + cfg.tileSize - 1) / cfg.tileSize, th = (gh + cfg.tileSize - 1) / cfg.tileSize;
    st->tiles_x = (uint32_t)tw;
    st->tiles_z = (uint32_t)th;
    if (tw <= 0 || th <= 0) {
        snprintf(err, cap, "the walkable input has no extent");
        return -1;
    }
    try {
        std::vector<unsigned char> area((size_t)ntris, 0);
        rcMarkWalkableTriangles(&ctx, c->slope, verts, nverts, tris, ntris, area.data());
        // which walkable triangles and solids touch which tile
        tile_bins b;
        unsigned used = bin_tiles(in, c, cfg, tw, th, area, b, st);
        float ts = (float)cfg.tileSize * cfg.cs;
        std::vector<std::vector<int>> &bins = b.tris, &pbins = b.pieces;
        std::vector<char> &live = b.live;
        if (!used) {
            snprintf(err, cap, "no walkable surface: none of the %d solids and %d triangles has a floor the agent "
                     "can stand on", in->npieces, ntris);
            return -1;
        }
        // 32-bit polygon references: tile bits + polygon bits <= 22 (DetourNavMesh.h, dtNavMesh::init
        // keeps at least 10 salt bits)
        unsigned tile_bits = ilog2(next_pow2(used));
        if (tile_bits > 14) {
            snprintf(err, cap, "%u tiles for this agent: more than a navmesh with 32-bit references holds (16384); "
                     "a larger agent radius gives fewer, larger cells", used);
            return -3;
        }
        unsigned poly_bits = 22 - tile_bits;
        dtNavMeshParams np;
        memset(&np, 0, sizeof np);
        rcVcopy(np.orig, c->bmin);
        np.tileWidth = ts;
        np.tileHeight = ts;
        np.maxTiles = (int)next_pow2(used);
        np.maxPolys = 1 << poly_bits;
        bk_nav_shim *m = new bk_nav_shim;
        m->nav = dtAllocNavMesh();
        if (!m->nav || dtStatusFailed(m->nav->init(&np))) {
            bk_nav_shim_free(m);
            snprintf(err, cap, "cannot set up a navmesh of %u tiles", used);
            return -2;
        }
        std::vector<int> sub;
        std::vector<unsigned char> sub_area;
        for (int z = 0; z < th; z++)
            for (int x = 0; x < tw; x++) {
                size_t i = (size_t)z * (size_t)tw + (size_t)x;
                if (!live[i]) continue;
                sub.clear();
                sub_area.clear();
                for (int t : bins[i]) {
                    sub.insert(sub.end(), &tris[t * 3], &tris[t * 3 + 3]);
                    sub_area.push_back(area[(size_t)t]);
                }
                int r = build_tile(&ctx, c, cfg, x, z, in, sub, sub_area, pbins[i], m->nav, st, err, cap);
                if (r == 0 && st->max_tile_polys > (1u << poly_bits)) {
                    snprintf(err, cap, "a tile holds %u polygons, more than %u", st->max_tile_polys, 1u << poly_bits);
                    r = -3;
                }
                if (r) {
                    bk_nav_shim_free(m);
                    return r;
                }
                std::vector<int>().swap(bins[i]);
                std::vector<int>().swap(pbins[i]);
            }
        if (!st->polys) {
            bk_nav_shim_free(m);
            snprintf(err, cap, "no walkable polygon: every floor is too small or too low for the agent");
            return -1;
        }
        m->query = dtAllocNavMeshQuery();
        if (!m->query || dtStatusFailed(m->query->init(m->nav, 65535))) {
            bk_nav_shim_free(m);
            snprintf(err, cap, "cannot set up the path search");
            return -2;
        }
        *out = m;
        return 0;
    } catch (const std::bad_alloc &) {
        snprintf(err, cap, "out of memory");
        return -2;
    }
}

extern "C" void bk_nav_shim_free(bk_nav_shim *m)
{
    if (!m) return;
    dtFreeNavMeshQuery(m->query);
    dtFreeNavMesh(m->nav);
    delete m;
}

extern "C" void bk_nav_shim_polys(const bk_nav_shim *m, bk_nav_shim_poly_fn fn, void *user)
{
    const dtNavMesh *nav = m->nav;
    float v[DT_VERTS_PER_POLYGON * 3];
    for (int ti = 0; ti < nav->getMaxTiles(); ti++) {
        const dtMeshTile *t = nav->getTile(ti);
        if (!t || !t->header) continue;
        for (int p = 0; p < t->header->polyCount; p++) {
            const dtPoly *poly = &t->polys[p];
            if (poly->getType() != DT_POLYTYPE_GROUND) continue;
            for (int k = 0; k < poly->vertCount; k++) memcpy(&v[k * 3], &t->verts[poly->verts[k] * 3], sizeof(float) * 3);
            fn(user, v, poly->vertCount, poly->getArea(), ti);
        }
    }
}

extern "C" int bk_nav_shim_nearest(const bk_nav_shim *m, const float p[3], const float ext[3], float out[3])
{
    dtQueryFilter filter;
    dtPolyRef ref = 0;
    if (dtStatusFailed(m->query->findNearestPoly(p, ext, &filter, &ref, out)) || !ref) return -1;
    return 0;
}

extern "C" int bk_nav_shim_path(const bk_nav_shim *m, const float a[3], const float b[3], const float ext[3], float **pts,
                                int *npts)
{
    *pts = nullptr;
    *npts = 0;
    dtQueryFilter filter;
    dtPolyRef ra = 0, rb = 0;
    float pa[3], pb[3];
    if (dtStatusFailed(m->query->findNearestPoly(a, ext, &filter, &ra, pa)) || !ra) return -1;
    if (dtStatusFailed(m->query->findNearestPoly(b, ext, &filter, &rb, pb)) || !rb) return -1;
    const int max_polys = 8192;
    dtPolyRef *polys = (dtPolyRef *)malloc(sizeof(dtPolyRef) * max_polys);
    float *straight = (float *)malloc(sizeof(float) * 3 * max_polys);
    if (!polys || !straight) {
        free(polys);
        free(straight);
        return -2;
    }
    int np = 0, ns = 0;
    dtStatus s = m->query->findPath(ra, rb, pa, pb, &filter, polys, &np, max_polys);
    bool partial = dtStatusFailed(s) || dtStatusDetail(s, DT_PARTIAL_RESULT) || np == 0 || polys[np - 1] != rb;
    if (np > 0) {
        float end[3];
        rcVcopy(end, pb);
        if (partial) m->query->closestPointOnPoly(polys[np - 1], pb, end, nullptr);
        s = m->query->findStraightPath(pa, end, polys, np, straight, nullptr, nullptr, &ns, max_polys);
        if (dtStatusFailed(s)) ns = 0;
    }
    free(polys);
    *pts = straight;
    *npts = ns;
    return partial ? 1 : 0;
}

// little-endian, as the machines bspkit runs on store it (docs/navmesh.md: "OUT.bin")
extern "C" int bk_nav_shim_save(const bk_nav_shim *m, uint8_t **data, size_t *size)
{
    const dtNavMesh *nav = m->nav;
    size_t total = 16 + sizeof(dtNavMeshParams);
    int count = 0;
    for (int i = 0; i < nav->getMaxTiles(); i++) {
        const dtMeshTile *t = nav->getTile(i);
        if (!t || !t->header || !t->dataSize) continue;
        total += 8 + (size_t)t->dataSize;
        count++;
    }
    uint8_t *o = (uint8_t *)malloc(total);
    if (!o) return -2;
    uint32_t head[4] = {0x56414e42u /* "BNAV" */, 1u, (uint32_t)count, (uint32_t)sizeof(dtNavMeshParams)};
    memcpy(o, head, 16);
    memcpy(o + 16, nav->getParams(), sizeof(dtNavMeshParams));
    size_t at = 16 + sizeof(dtNavMeshParams);
    for (int i = 0; i < nav->getMaxTiles(); i++) {
        const dtMeshTile *t = nav->getTile(i);
        if (!t || !t->header || !t->dataSize) continue;
        uint32_t ref = (uint32_t)nav->getTileRef(t), n = (uint32_t)t->dataSize;
        memcpy(o + at, &ref, 4);
        memcpy(o + at + 4, &n, 4);
        memcpy(o + at + 8, t->data, n);
        at += 8 + n;
    }
    *data = o;
    *size = total;
    return 0;
}
