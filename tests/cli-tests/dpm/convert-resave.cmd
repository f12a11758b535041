# the optimising re-save: unused bones dropped, triangles reordered for the vertex cache
convert {fetched}/dpm/shield.dpm -o {work}/shield.dpm
