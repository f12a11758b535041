# a good and a bad map: both reported, exit 1
validate --quiet {samples}/ericw_q1_detail_fence2.bsp {data}/wrong_magic.bsp
