/* Collision as data (BK_OPT_COLLISION, collision.c): the neutral builder a family's collision op
 * (bk_family.collision) fills with convex pieces. The scene side knows no family: the front door
 * (src/core/build.c) hands it the family's op. */
#ifndef BK_SCENE_COLLISION_H
#define BK_SCENE_COLLISION_H

#include "common/bk_internal.h"

typedef struct bk_collision bk_collision;
typedef struct bk_halfspace { float n[3], d; } bk_halfspace; /* the side where n.p <= d */
typedef bk_result (*bk_collision_fill)(const bk_file *f, bk_collision *b);

/* One convex piece, the intersection of n half-spaces, of the given BK_CONTENTS_* (a node of
 * its own under "collision"); BK_ELIMIT past the vertex budget. */
bk_result bk_collision_add_convex(bk_collision *b, const bk_halfspace *pl, uint32_t n, uint32_t contents);
/* The "collision" node, its material and the pieces fill adds (what is past the limits is left
 * out, with a warning). */
bk_result bk_scene_add_collision(const bk_file *f, const bk_options *opt, bk_scene *s, bk_collision_fill fill);
/* The brush families' fill: their query view's collision model (bk_cm) as pieces. */
bk_result bk_collision_brushes(const bk_file *f, bk_collision *b);

#endif
