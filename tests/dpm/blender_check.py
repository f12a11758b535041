# Manual check (not a CI test): import a converted .glb in Blender and compare the deformed mesh
# with bspkit's skinning of the DPM frame shown.
#   build/tests/dpm_dump MODEL.dpm F:F:0 > frame.txt
#   blender -b --factory-startup --python tests/dpm/blender_check.py -- MODEL.glb ACTION SECONDS frame.txt
# prints armatures/bones/actions and "RESULT verts N N max diff D" (metres; Blender is Z-up, like
# the engine, so only the 0.0254 m/unit scale applies).
import sys
import numpy
if not hasattr(numpy, 'bool'):
    numpy.bool = bool
import bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
args = sys.argv[sys.argv.index('--') + 1:]
path, action, t, dump = args[0], args[1], float(args[2]), args[3]
bpy.ops.import_scene.gltf(filepath=path)
arm = [o for o in bpy.data.objects if o.type == 'ARMATURE'][0]
mesh = [o for o in bpy.data.objects if o.type == 'MESH'][0]
act = [a for a in bpy.data.actions if a.name.startswith(action)][0]
arm.animation_data.action = act
scene = bpy.context.scene
scene.render.fps = 24
scene.frame_set(int(round(t * 24)))
dg = bpy.context.evaluated_depsgraph_get()
ev = mesh.evaluated_get(dg)
me = ev.to_mesh()
W = mesh.matrix_world
got = [W @ v.co for v in me.vertices]
want = []
for l in open(dump):
    p = l.split()
    if p[0] == 'v':
        x, y, z = map(float, p[3:6])
        want.append((x * 0.0254, y * 0.0254, z * 0.0254))  # Blender is Z-up again
print('RESULT armature bones', len(arm.data.bones), 'actions', sorted(a.name for a in bpy.data.actions))
print('RESULT verts', len(got), len(want), 'max diff',
      max(max(abs(a[i] - b[i]) for i in range(3)) for a, b in zip(got, want)))
