"""Reading and rewriting the .glb bspkit writes (no Blender here: plain Python)."""
import json
import struct

GLB_MAGIC = 0x46546C67
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942


class GlbError(ValueError):
    pass


def read(path):
    """Return (json_dict, bin_bytes) of a .glb file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 20:
        raise GlbError(f"{path}: too short for a .glb ({len(data)} bytes)")
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != GLB_MAGIC or version != 2 or length > len(data):
        raise GlbError(f"{path}: not a glTF 2.0 binary")
    off, doc, binary = 12, None, b""
    while off + 8 <= length:
        clen, ctype = struct.unpack_from("<II", data, off)
        chunk = data[off + 8:off + 8 + clen]
        if ctype == CHUNK_JSON and doc is None:
            doc = json.loads(chunk.decode("utf-8"))
        elif ctype == CHUNK_BIN and not binary:
            binary = chunk
        off += 8 + clen
    if doc is None:
        raise GlbError(f"{path}: no JSON chunk")
    return doc, binary


def write(path, doc, binary):
    """Write a .glb from a JSON document and its binary chunk (both chunks 4-byte padded)."""
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    binary = bytes(binary) + b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(js) + (8 + len(binary) if binary else 0)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", GLB_MAGIC, 2, total))
        f.write(struct.pack("<II", len(js), CHUNK_JSON) + js)
        if binary:
            f.write(struct.pack("<II", len(binary), CHUNK_BIN) + binary)


def image_bytes(doc, binary, index):
    """The encoded bytes (PNG) of glTF image INDEX, and its MIME type."""
    img = doc["images"][index]
    if "bufferView" not in img:
        raise GlbError(f"image {index} is not embedded")
    view = doc["bufferViews"][img["bufferView"]]
    start = view.get("byteOffset", 0)
    return binary[start:start + view["byteLength"]], img.get("mimeType", "image/png")


MATERIAL_TAG = "bspkitMaterial"


def strip_textures(doc):
    """Prepare a document for Blender's glTF importer: every material is tagged with its index in
    its extras (the importer turns extras into custom properties, so each Blender material can be
    matched to its glTF material), and textures are taken out (the add-on builds the materials
    itself, from the original document). Returns the original materials, unchanged."""
    original = json.loads(json.dumps(doc.get("materials", [])))
    for i, m in enumerate(doc.get("materials", [])):
        for key in ("normalTexture", "occlusionTexture", "emissiveTexture"):
            m.pop(key, None)
        pbr = m.get("pbrMetallicRoughness", {})
        for key in ("baseColorTexture", "metallicRoughnessTexture"):
            pbr.pop(key, None)
        ext = m.get("extensions", {})
        for name in list(ext):
            if name != "KHR_materials_unlit":
                ext.pop(name)
        m.setdefault("extras", {})[MATERIAL_TAG] = i
    for key in ("textures", "images", "samplers"):
        doc.pop(key, None)
    used = [e for e in doc.get("extensionsUsed", []) if e not in ("KHR_materials_specular", "KHR_texture_transform")]
    if "extensionsUsed" in doc:
        doc["extensionsUsed"] = used
    doc.pop("extensionsRequired", None)
    return original
