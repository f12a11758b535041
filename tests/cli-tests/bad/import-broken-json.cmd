entities {samples}/ericw_q1_detail_fence2.bsp --import {data}/broken.json --dry-run
