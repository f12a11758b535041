# the entities it prints, imported back: nothing written
entities {samples}/ericw_q1_detail_fence2.bsp --import {data}/fence2_entities.json --dry-run
