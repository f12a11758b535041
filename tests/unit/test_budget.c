/* bk_budget: one budget of decompressed bytes shared by the files a program holds at once. A real
 * LZMA-compressed Source map holds its decoded lumps from it while it is loaded; a second load
 * that would go past the budget is refused (BK_ELIMIT) while the first is held and succeeds once it
 * is freed; freeing every file gives every byte back; bk_validate_file gives back what it held;
 * threads loading at once never take more than the budget. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "bspkit/bspkit.h"

static const char *g_map;
static bk_budget *g_budget;

static void *loader(void *arg)
{
    (void)arg;
    for (int k = 0; k < 20; k++) {
        bk_options o;
        memset(&o, 0, sizeof o);
        o.budget = g_budget;
        bk_file *f = NULL;
        if (bk_file_open(g_map, &o, &f) == BK_OK) bk_file_free(f);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char map[4096];
    snprintf(map, sizeof map, "%s/corpus/source/tf2c_v20_lzma_tdm_wintercastle.bsp", argc > 1 ? argv[1] : "");
    FILE *fp = fopen(map, "rb");
    if (!fp) {
        printf("SKIP: %s missing\n", map);
        return 77;
    }
    fclose(fp);
    g_map = map;
    const uint64_t big = (uint64_t)1 << 30;
    bk_budget *b = bk_budget_new(big);
    CHECK(b && bk_budget_left(b) == big);
    bk_options o;
    memset(&o, 0, sizeof o);
    o.budget = b;
    bk_file *f1 = NULL, *f2 = NULL;
    CHECK(bk_file_open(map, &o, &f1) == BK_OK);
    uint64_t used = big - bk_budget_left(b);
    CHECK(used > 0);               /* the decoded lumps are held */
    bk_file_free(f1);
    CHECK(bk_budget_left(b) == big); /* and given back */
    bk_budget_free(b);

    /* room for one map and a half: the second load is refused while the first is held */
    b = bk_budget_new(used + used / 2);
    o.budget = b;
    CHECK(bk_file_open(map, &o, &f1) == BK_OK);
    CHECK(bk_file_open(map, &o, &f2) == BK_ELIMIT && f2 == NULL);
    CHECK(bk_budget_left(b) == used / 2); /* a refusal holds nothing */
    bk_file_free(f1);
    CHECK(bk_file_open(map, &o, &f2) == BK_OK);
    bk_file_free(f2);
    CHECK(bk_budget_left(b) == used + used / 2);
    /* validate decodes every lump (more than a load reads), and gives them all back */
    bk_budget *vb = bk_budget_new(big);
    o.budget = vb;
    uint32_t errors = 0, warnings = 0;
    CHECK(bk_validate_file(map, &o, NULL, &errors, &warnings) == BK_OK && errors == 0);
    CHECK(bk_budget_left(vb) == big);
    bk_budget_free(vb);

    /* four threads loading at once: each load either fits or is refused, nothing is lost */
    g_budget = b;
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, loader, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    CHECK(bk_budget_left(b) == used + used / 2);
    bk_budget_free(b);
    return CHECK_DONE();
}
