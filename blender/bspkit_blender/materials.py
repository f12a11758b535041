"""Materials drawn as the engines draw them: base colour x texture [x vertex colour] x lightmap
(the atlas through the second UV map) + emissive, into an Emission shader, blended as the glTF
material's alphaMode / extras.blend say (docs/gltf.md, "How to draw it like the engine").
Files without any lightmap (models, --no-lightmaps) get Principled BSDF materials instead, to be
lit in Blender."""
import os

import bpy

NEAREST = 9728
CLAMP = 33071


def _socket(sockets, *names):
    """A node socket by identifier or name (names differ between Blender versions)."""
    for n in names:
        for s in sockets:
            if s.identifier == n:
                return s
    for n in names:
        if n in sockets:
            return sockets[n]
    raise KeyError(names[0])


class Images:
    """The .glb's images, loaded into Blender once each and packed into the .blend."""

    def __init__(self, doc, binary, tmpdir, raw):
        self.doc, self.binary, self.tmpdir, self.raw = doc, binary, tmpdir, raw
        self.loaded = {}

    def texture(self, index):
        """(image, sampler dict) of glTF texture INDEX, or (None, {})."""
        texs = self.doc.get("textures", [])
        if not isinstance(index, int) or not 0 <= index < len(texs) or "source" not in texs[index]:
            return None, {}
        t = texs[index]
        samplers = self.doc.get("samplers", [])
        sampler = samplers[t["sampler"]] if isinstance(t.get("sampler"), int) and t["sampler"] < len(samplers) else {}
        return self.image(t["source"], t.get("name")), sampler

    def image(self, index, fallback_name=None):
        if index in self.loaded:
            return self.loaded[index]
        from . import glb
        img = None
        try:
            data, mime = glb.image_bytes(self.doc, self.binary, index)
            path = os.path.join(self.tmpdir, f"image{index}.{'jpg' if 'jpeg' in mime else 'png'}")
            with open(path, "wb") as f:
                f.write(data)
            img = bpy.data.images.load(path)
            img.pack()
            # the engine's look multiplies the stored (sRGB) values as they are: read them raw
            img.colorspace_settings.name = "Non-Color" if self.raw else "sRGB"
            img.name = self.doc["images"][index].get("name") or fallback_name or f"image{index}"
        except (glb.GlbError, RuntimeError, OSError, IndexError, KeyError):
            img = None
        self.loaded[index] = img
        return img


class Builder:
    """Node-tree building helpers for one material."""

    def __init__(self, mat):
        self.nt = mat.node_tree
        self.nt.nodes.clear()
        self.x = -1200

    def node(self, kind, x=None, y=0, **props):
        n = self.nt.nodes.new(kind)
        n.location = (self.x if x is None else x, y)
        for k, v in props.items():
            setattr(n, k, v)
        return n

    def link(self, a, b):
        self.nt.links.new(a, b)

    def tex(self, image, sampler, uv_name, y, label):
        t = self.node("ShaderNodeTexImage", y=y, image=image, label=label)
        t.interpolation = "Closest" if sampler.get("magFilter") == NEAREST else "Linear"
        t.extension = "EXTEND" if sampler.get("wrapS") == CLAMP else "REPEAT"
        if uv_name:
            uv = self.node("ShaderNodeUVMap", x=self.x - 250, y=y, uv_map=uv_name, label=label + " UV")
            self.link(uv.outputs["UV"], t.inputs["Vector"])
        return t

    def mix(self, blend, a, b, x, y, label, fac=1.0, clamp=False):
        """A Mix node (colour): BLEND of A and B; A / B / FAC may be sockets or constants."""
        m = self.node("ShaderNodeMix", x=x, y=y, label=label)
        m.data_type = "RGBA"
        m.blend_type = blend
        m.clamp_result = clamp
        for sock, v in ((_socket(m.inputs, "Factor_Float", "Factor"), fac), (_socket(m.inputs, "A_Color"), a),
                        (_socket(m.inputs, "B_Color"), b)):
            if isinstance(v, bpy.types.NodeSocket):
                self.link(v, sock)
            else:
                sock.default_value = v
        return _socket(m.outputs, "Result_Color")

    def math(self, op, a, b, x, y):
        m = self.node("ShaderNodeMath", x=x, y=y, operation=op)
        for sock, v in zip(m.inputs, (a, b)):
            if isinstance(v, bpy.types.NodeSocket):
                self.link(v, sock)
            else:
                sock.default_value = v
        return m.outputs[0]


def _rgba(v, n=4):
    v = list(v) + [1.0] * (4 - len(v))
    return tuple(float(x) for x in v[:n])


def _set_blend(mat, method):
    if hasattr(mat, "blend_method"):
        mat.blend_method = method
    if hasattr(mat, "shadow_method"):
        mat.shadow_method = "NONE" if method == "BLEND" else ("CLIP" if method == "CLIP" else "OPAQUE")


def linear_to_srgb(c):
    return c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def colour(b, gm, images, uv_names):
    """Sockets (colour, alpha, lightmap image node or None) of base x texture [x vertex colour]
    [x lightmap]: in the engine's (sRGB) values when the images are read raw, as three.js's
    reference (tests/tools/render.html) and the engines compute it."""
    ex = gm.get("extras", {}) or {}
    pbr = gm.get("pbrMetallicRoughness", {})
    f = _rgba(pbr.get("baseColorFactor", [1, 1, 1, 1]))
    rgb = b.node("ShaderNodeRGB", y=300, label="base colour factor")
    rgb.outputs[0].default_value = tuple(linear_to_srgb(c) if images.raw else c for c in f[:3]) + (1.0,)
    col, alpha = rgb.outputs[0], f[3]
    bt = pbr.get("baseColorTexture")
    if bt:
        img, smp = images.texture(bt.get("index"))
        if img:
            t = b.tex(img, smp, uv_names[min(bt.get("texCoord", 0), len(uv_names) - 1)] if uv_names else "", 0, "base colour")
            tcol = t.outputs["Color"]
            img2, smp2 = images.texture(ex.get("blendTexture"))
            if img2:  # Source WorldVertexTransition: the second texture over the first by COLOR_0's alpha
                t2 = b.tex(img2, smp2, uv_names[0] if uv_names else "", -300, "blend texture")
                va = b.node("ShaderNodeVertexColor", y=-600, label="blend factor")
                tcol = b.mix("MIX", tcol, t2.outputs["Color"], -900, -100, "blend", fac=_socket(va.outputs, "Alpha"))
            col = b.mix("MULTIPLY", col, tcol, -700, 200, "base colour")
            alpha = b.math("MULTIPLY", alpha, t.outputs["Alpha"], -700, -200)
    if ex.get("vertexColor") == "multiply":
        vc = b.node("ShaderNodeVertexColor", y=-800, label="vertex colour")
        col = b.mix("MULTIPLY", col, vc.outputs["Color"], -500, 200, "vertex colour")
    lm_node = None
    occ = gm.get("occlusionTexture")
    if occ and len(uv_names) > occ.get("texCoord", 0):
        img, smp = images.texture(occ.get("index"))
        if img:
            lm_node = b.tex(img, smp, uv_names[occ.get("texCoord", 1)], 600, "lightmap")
            lm = lm_node.outputs["Color"]
            scale = float(ex.get("lightmapScale", 1) or 1)
            if abs(scale - 1) > 1e-6:
                lm = b.mix("MULTIPLY", lm, (scale, scale, scale, 1), -700, 600, "lightmap scale")
            col = b.mix("MULTIPLY", col, lm, -300, 300, "texture x lightmap")
    return col, alpha, lm_node


def emissive(b, gm, images, uv_names):
    """The emissive colour socket (factor x texture x strength), or None."""
    e = _rgba(gm.get("emissiveFactor", [0, 0, 0]), 3)
    et = gm.get("emissiveTexture")
    if not any(e):
        return None
    strength = float(gm.get("extensions", {}).get("KHR_materials_emissive_strength", {}).get("emissiveStrength", 1.0))
    if images.raw:  # as the reference renderer: the factor in sRGB, the strength through 1/2.2
        out = tuple(linear_to_srgb(c) * strength ** (1 / 2.2) for c in e) + (1.0,)
    else:
        out = tuple(c * strength for c in e) + (1.0,)
    if et:
        img, smp = images.texture(et.get("index"))
        if img:
            t = b.tex(img, smp, uv_names[0] if uv_names else "", -1000, "emissive")
            return b.mix("MULTIPLY", out, t.outputs["Color"], -500, -900, "emissive")
    rgb = b.node("ShaderNodeRGB", x=-500, y=-1100, label="emissive")
    rgb.outputs[0].default_value = out
    return rgb.outputs[0]


GROUP = "bspkit sRGB to linear"


def _group_socket(g, name, in_out):
    if hasattr(g, "interface"):  # Blender 4
        return g.interface.new_socket(name, in_out=in_out, socket_type="NodeSocketColor")
    return (g.inputs if in_out == "INPUT" else g.outputs).new("NodeSocketColor", name)


def srgb_to_linear_group():
    """A node group turning the engine's sRGB values into Blender's linear ones exactly (the
    piecewise sRGB curve, clamped to 1), so that the Standard view transform writes them back."""
    g = bpy.data.node_groups.get(GROUP)
    if g is not None:
        return g
    g = bpy.data.node_groups.new(GROUP, "ShaderNodeTree")
    _group_socket(g, "Color", "INPUT")
    _group_socket(g, "Color", "OUTPUT")
    gi, go = g.nodes.new("NodeGroupInput"), g.nodes.new("NodeGroupOutput")
    sep, comb = g.nodes.new("ShaderNodeSeparateColor"), g.nodes.new("ShaderNodeCombineColor")
    gi.location, sep.location, comb.location, go.location = (-900, 0), (-700, 0), (500, 0), (700, 0)
    g.links.new(gi.outputs[0], sep.inputs[0])
    g.links.new(comb.outputs[0], go.inputs[0])

    def math(op, a, b, c=None, x=0, y=0):
        m = g.nodes.new("ShaderNodeMath")
        m.operation, m.location = op, (x, y)
        for sock, v in zip(m.inputs, (a, b, c)):
            if v is None:
                continue
            if isinstance(v, bpy.types.NodeSocket):
                g.links.new(v, sock)
            else:
                sock.default_value = v
        return m
    for i in range(3):
        c, y = sep.outputs[i], 300 - 300 * i
        low = math("LESS_THAN", c, 0.04045, x=-450, y=y + 80).outputs[0]
        lin = math("DIVIDE", c, 12.92, x=-450, y=y - 80).outputs[0]
        curve = math("POWER", math("MULTIPLY_ADD", c, 1 / 1.055, 0.055 / 1.055, x=-450, y=y - 200).outputs[0], 2.4,
                     x=-250, y=y - 200).outputs[0]
        diff = math("SUBTRACT", lin, curve, x=-50, y=y).outputs[0]
        out = math("MULTIPLY_ADD", diff, low, curve, x=150, y=y)
        out.use_clamp = True
        g.links.new(out.outputs[0], comb.inputs[i])
    return g


def to_linear(b, col):
    n = b.node("ShaderNodeGroup", x=-100, y=400, label="engine sRGB to linear")
    n.node_tree = srgb_to_linear_group()
    b.link(col, n.inputs[0])
    return n.outputs[0]


def build_engine(mat, gm, images, uv_names):
    """The engine's picture: an Emission shader of (colour + emissive), blended per alphaMode /
    extras.blend, back faces culled unless doubleSided."""
    b = Builder(mat)
    ex = gm.get("extras", {}) or {}
    col, alpha, lm = colour(b, gm, images, uv_names)
    em = emissive(b, gm, images, uv_names)
    if em is not None:
        col = b.mix("ADD", col, em, -100, 200, "+ emissive", clamp=True)
    col = to_linear(b, col)
    emit = b.node("ShaderNodeEmission", x=100, y=200)
    b.link(col, emit.inputs["Color"])
    emit.inputs["Strength"].default_value = 1.0
    surface = emit.outputs[0]
    mode = gm.get("alphaMode", "OPAQUE")
    blend = ex.get("blend") or ("alpha" if mode == "BLEND" else None)
    if blend == "add":  # what is behind + colour x alpha
        _set_blend(mat, "BLEND")
        if isinstance(alpha, bpy.types.NodeSocket) or alpha != 1:
            a = alpha if isinstance(alpha, bpy.types.NodeSocket) else (alpha, alpha, alpha, 1.0)
            b.link(b.mix("MULTIPLY", col, a, 0, 0, "x alpha"), emit.inputs["Color"])
        tr = b.node("ShaderNodeBsdfTransparent", x=100, y=0)
        add = b.node("ShaderNodeAddShader", x=300, y=100)
        b.link(tr.outputs[0], add.inputs[0])
        b.link(surface, add.inputs[1])
        surface = add.outputs[0]
    elif blend == "multiply":  # what is behind x colour
        _set_blend(mat, "BLEND")
        tr = b.node("ShaderNodeBsdfTransparent", x=100, y=0)
        b.link(col, tr.inputs["Color"])
        surface = tr.outputs[0]
    elif blend == "alpha" or mode == "MASK":
        _set_blend(mat, "BLEND" if blend else "CLIP")
        fac = alpha
        if mode == "MASK":  # kept where alpha >= cutoff, as the engines' alpha test
            fac = b.math("GREATER_THAN", b.math("ADD", alpha, 1e-6, -100, -300), float(gm.get("alphaCutoff", 0.5)), 100, -300)
        tr = b.node("ShaderNodeBsdfTransparent", x=100, y=0)
        mix = b.node("ShaderNodeMixShader", x=300, y=100)
        if isinstance(fac, bpy.types.NodeSocket):
            b.link(fac, mix.inputs["Fac"])
        else:
            mix.inputs["Fac"].default_value = fac
        b.link(tr.outputs[0], mix.inputs[1])
        b.link(surface, mix.inputs[2])
        surface = mix.outputs[0]
    else:
        _set_blend(mat, "OPAQUE")
    # back faces: culled in Eevee and the viewport; Cycles draws them (a Backfacing switch to
    # Transparent would also hide the coincident twin faces of Quake liquids)
    mat.use_backface_culling = not gm.get("doubleSided") and not ex.get("sky")
    out = b.node("ShaderNodeOutputMaterial", x=700, y=200)
    b.link(surface, out.inputs["Surface"])
    return lm


def build_lit(mat, gm, images, uv_names):
    """A Principled BSDF material (models, maps converted without lightmaps): lit in Blender."""
    b = Builder(mat)
    col, alpha, _ = colour(b, gm, images, uv_names)
    bsdf = b.node("ShaderNodeBsdfPrincipled", x=100, y=200)
    b.link(col, bsdf.inputs["Base Color"])
    pbr = gm.get("pbrMetallicRoughness", {})
    bsdf.inputs["Metallic"].default_value = float(pbr.get("metallicFactor", 1.0))
    bsdf.inputs["Roughness"].default_value = float(pbr.get("roughnessFactor", 1.0))
    if isinstance(alpha, bpy.types.NodeSocket):
        b.link(alpha, bsdf.inputs["Alpha"])
    else:
        bsdf.inputs["Alpha"].default_value = alpha
    em = emissive(b, gm, images, uv_names)
    if em is not None:
        b.link(em, _socket(bsdf.inputs, "Emission Color", "Emission"))
        _socket(bsdf.inputs, "Emission Strength").default_value = 1.0
    mode = gm.get("alphaMode", "OPAQUE")
    _set_blend(mat, {"MASK": "CLIP", "BLEND": "BLEND"}.get(mode, "OPAQUE"))
    if mode == "MASK" and hasattr(mat, "alpha_threshold"):
        mat.alpha_threshold = float(gm.get("alphaCutoff", 0.5))
    mat.use_backface_culling = not gm.get("doubleSided", False)
    out = b.node("ShaderNodeOutputMaterial", x=400, y=200)
    b.link(bsdf.outputs[0], out.inputs["Surface"])
