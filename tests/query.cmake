# Visibility and collision queries (src/query, src/formats/*/*_query.c).
bk_sh_test(query_corpus query/corpus.sh)
