# the framegroups file beside the model names the animations; its last group runs past the end
convert {fetched}/dpm/h_uzi.dpm -o {work}/h_uzi.glb --no-textures
