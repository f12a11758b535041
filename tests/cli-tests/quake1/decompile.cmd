decompile {samples}/ericw_q1_detail_fence2.bsp -o {work}/fence2.map
