trace {samples}/ericw_q1_detail_fence2.bsp --from 0 0 0
