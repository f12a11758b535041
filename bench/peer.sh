# Sourced by the benchmarks that time bspkit against a peer tool over the fetched Quake 3 maps
# (q3_vs_assimp.sh, obj_vs_q3map2.sh): BSPKIT (argument 1, default build/bspkit), CORPUS
# (argument 2, default $BSPKIT_CORPUS or ~/.cache/bspkit-corpus) and REPS (default 3), checked;
# `peer VAR NAME` is true when $VAR names an executable, else it says the peer is missing.
BSPKIT=${1:-build/bspkit}
CORPUS=${2:-${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}}
REPS=${REPS:-3}
[[ -x $BSPKIT ]] || { echo "no bspkit at $BSPKIT (build first)"; exit 1; }
[[ -d $CORPUS/q3 ]] || { echo "SKIP: no corpus in $CORPUS (run ../shared/scripts/fetch-corpus)"; exit 0; }
peer() {
    local v=${!1:-}
    [[ -n $v && -x $v ]] && return 0
    echo "note: $1 not set (or not executable): no $2 to compare with"
    return 1
}
