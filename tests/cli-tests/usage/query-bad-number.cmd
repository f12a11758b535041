query {samples}/ericw_q1_detail_fence2.bsp --point 0 zero 64
