/* Which family query backends are compiled in. The Quake family's is always present; the
 * Quake 3 and Source backends' branch defines BK_HAVE_Q3_QUERY / BK_HAVE_SOURCE_QUERY here when
 * it adds src/formats/q3/q3_query.c and src/formats/source/source_query.c, and query.c then
 * routes those formats to them (until then they answer BK_EUNSUPPORTED). */
#ifndef BK_QUERY_FAMILIES_H
#define BK_QUERY_FAMILIES_H

#endif
