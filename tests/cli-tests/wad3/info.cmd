info {corpus}/wad3/ericw_hlwad.wad
