// The engine's way of drawing a bspkit .glb with three.js, shared by the test renderer
// (tests/tools/render.html) and the viewer page (web/main.js, bundled into build/web/index.html).
import * as THREE from 'three';


// The engines multiply texture x lightmap in gamma (sRGB) space and write the result as is;
// three.js's built-in lightMap divides by pi and multiplies in linear space (about 45% darker).
// This material samples every image raw (no colour-space decode) and combines them the
// engines' way: base colour (factor x texture [x vertex colour when extras.vertexColor is
// "multiply"]) x lightmap, plus the emissive colour (factor x texture x strength). Factors are
// written linear, as glTF wants, and turned back to the engines' gamma-space values here. The
// lightmap multiplier is the material's extras.lightmapScale (1 when absent: bspkit bakes the
// engine's gain into the atlas). mode=lightmap: the lightmap alone (grey where there is none);
// mode=texture: the texture alone. MASK materials discard below the cutoff; BLEND materials
// blend: extras.blend "add" adds (colour x alpha), "multiply" multiplies what is behind, else
// alpha blending. A material with extras.blendTexture (Source WorldVertexTransition) mixes that
// second texture over the base texture by the vertex colour's alpha (extras.blendFactor
// "COLOR_0.a"), as the engine blends $basetexture2 on displacements. Sky materials (extras.sky) are drawn first, behind everything, in their
// extras.skyLayer order, and the "skybox" node follows the camera as the engine's sky does. A
// display gamma in the scene's extras (displayGamma: DarkPlaces games set v_gamma) is applied to
// the finished picture.
export function engineMaterial(m, g, mode = 'full', blendTextures = {}) {
  const ex = (m.userData && m.userData) || {};
  const tex = mode === 'lightmap' ? null : m.map;
  const lm = mode === 'texture' ? null : m.aoMap;
  const em = mode === 'lightmap' || mode === 'texture' ? null : m.emissiveMap;
  for (const t of [tex, lm, em]) if (t) { t.colorSpace = THREE.NoColorSpace; t.needsUpdate = true; }
  const base = m.color.clone().convertLinearToSRGB();   /* base colour factor, e.g. Source reflectivity */
  const emissive = m.emissive ? m.emissive.clone().convertLinearToSRGB() : new THREE.Color(0, 0, 0);
  const emStrength = Math.pow(m.emissiveIntensity || 1, 1 / 2.2);
  const hasUv1 = !!(g.attributes.uv1);
  const vc = ex.vertexColor === 'multiply' && g.attributes.color && mode !== 'lightmap';
  const tex2 = tex && blendTextures[ex.blendTexture] && g.attributes.color && g.attributes.color.itemSize === 4
    ? blendTextures[ex.blendTexture] : null;
  if (tex2) { tex2.colorSpace = THREE.NoColorSpace; tex2.needsUpdate = true; }
  const blend = m.transparent ? (ex.blend || 'alpha') : (ex.blend || null);
  const sky = !!ex.sky;
  const mat = new THREE.ShaderMaterial({
    uniforms: {
      map: { value: tex }, map2: { value: tex2 }, lightMap: { value: lm && hasUv1 ? lm : null }, emissiveMap: { value: em },
      base: { value: mode === 'lightmap' ? new THREE.Color(1, 1, 1) : base },
      emissive: { value: mode === 'pbr' || mode === 'full' ? emissive : new THREE.Color(0, 0, 0) },
      emStrength: { value: emStrength },
      lmScale: { value: +(ex.lightmapScale || 1) },
      alphaTest: { value: m.alphaTest || 0 }, opacity: { value: m.opacity },
      lmOnly: { value: mode === 'lightmap' ? 1 : 0 },
    },
    defines: { USE_TEX: tex ? 1 : 0, USE_TEX2: tex2 ? 1 : 0, USE_LM: lm && hasUv1 ? 1 : 0, USE_EM: em ? 1 : 0, USE_VC: vc ? 1 : 0,
               VC_SIZE: vc ? g.attributes.color.itemSize : 4 },
    vertexShader: `
      attribute vec2 uv1;
      #if USE_VC
      #if VC_SIZE == 4
      attribute vec4 color;
      #else
      attribute vec3 color;
      #endif
      varying vec3 vCol;
      #endif
      #if USE_TEX2
      #if !USE_VC
      attribute vec4 color;
      #endif
      varying float vBlend;
      #endif
      varying vec2 vUv; varying vec2 vUv1;
      void main() { vUv = uv; vUv1 = uv1;
      #if USE_VC
        vCol = color.rgb;
      #endif
      #if USE_TEX2
        vBlend = color.a;
      #endif
        gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0); }`,
    fragmentShader: `
      uniform sampler2D map; uniform sampler2D map2; uniform sampler2D lightMap; uniform sampler2D emissiveMap;
      uniform vec3 base; uniform vec3 emissive; uniform float emStrength; uniform float lmScale;
      uniform float alphaTest; uniform float opacity; uniform int lmOnly;
      #if USE_VC
      varying vec3 vCol;
      #endif
      #if USE_TEX2
      varying float vBlend;
      #endif
      varying vec2 vUv; varying vec2 vUv1;
      void main() {
        vec4 c = vec4(base, opacity);
      #if USE_TEX2
        c *= mix(texture2D(map, vUv), texture2D(map2, vUv), clamp(vBlend, 0.0, 1.0));
      #elif USE_TEX
        c *= texture2D(map, vUv);
      #endif
        if (alphaTest > 0.0 && c.a < alphaTest) discard;
      #if USE_VC
        c.rgb *= vCol;
      #endif
      #if USE_LM
        c.rgb *= texture2D(lightMap, vUv1).rgb * lmScale;
      #else
        if (lmOnly == 1) c.rgb = vec3(0.5);
      #endif
        vec3 e = emissive * emStrength;
      #if USE_EM
        e *= texture2D(emissiveMap, vUv).rgb;
      #endif
        c.rgb += e;
        gl_FragColor = vec4(min(c.rgb, vec3(1.0)), c.a);
      }`,
    /* sky layers stay in the opaque list (drawn first, by renderOrder) and blend explicitly */
    side: sky ? THREE.DoubleSide : m.side, transparent: !!blend && !sky, depthWrite: !blend && !sky, depthTest: !sky,
  });
  if (sky && blend === 'alpha') {
    mat.blending = THREE.CustomBlending;
    mat.blendSrc = THREE.SrcAlphaFactor; mat.blendDst = THREE.OneMinusSrcAlphaFactor;
  }
  if (blend === 'add') {
    mat.blending = THREE.CustomBlending;
    mat.blendSrc = THREE.SrcAlphaFactor; mat.blendDst = THREE.OneFactor;
  } else if (blend === 'multiply') {
    mat.blending = THREE.CustomBlending;
    mat.blendSrc = THREE.ZeroFactor; mat.blendDst = THREE.SrcColorFactor;
  }
  /* the glTF extras ride along: skyOrder and the viewer read them from the drawn material */
  mat.userData = ex;
  return mat;
}

/* The second textures of blended materials (extras.blendTexture: a glTF texture index), which
   engineMaterial takes as blendTextures. */
export async function loadBlendTextures(gltf) {
  const out = {}, wanted = new Set();
  for (const m of gltf.parser.json.materials || [])
    if (m.extras && Number.isInteger(m.extras.blendTexture)) wanted.add(m.extras.blendTexture);
  for (const t of wanted) out[t] = await gltf.parser.getDependency('texture', t);
  return out;
}

/* Sky materials draw first, behind everything, in their extras.skyLayer order. */
export function skyOrder(o) {
  const mx = (o.material && o.material.userData) || {};
  if (mx.sky) { o.renderOrder = -1000 + (+mx.skyLayer || 0); o.frustumCulled = false; }
}

/* Centre the sky box (the "skybox" node with extras.followCamera) on the eye, as the engine draws
   it, and make the camera's far plane reach it. */
export function followSky(skybox, cam) {
  skybox.position.copy(cam.position);
  /* ... a hair ahead of it: with the view along a diagonal (yaw 45, 135, ...; pitch 0, common
     at spawn points) box corners lie exactly in the eye's plane (clip w = 0), and SwiftShader
     then interpolates the faces' texture coordinates to infinity (each triangle one flat
     colour). A millimetre is far below a pixel at the box's distance. */
  skybox.position.addScaledVector(cam.getWorldDirection(new THREE.Vector3()), 0.001);
  skybox.updateMatrixWorld(true);
  const sb = new THREE.Box3().setFromObject(skybox);
  const need = sb.getSize(new THREE.Vector3()).length();
  if (cam.far < need) { cam.far = need; cam.updateProjectionMatrix(); }
}

/* An engine eye (Z up, engine units) and Quake angles (yaw about Z from +X, pitch > 0 looks down)
   on a three.js camera, for a glTF written with unit metres per engine unit (Y up: x, z, -y). */
export function placeCamera(cam, pos, yawDeg, pitchDeg, unit = 0.0254) {
  cam.position.set(pos[0] * unit, pos[2] * unit, -pos[1] * unit);
  const yaw = (yawDeg || 0) * Math.PI / 180, pitch = (pitchDeg || 0) * Math.PI / 180;
  const d = new THREE.Vector3(Math.cos(pitch) * Math.cos(yaw), -Math.sin(pitch), -Math.cos(pitch) * Math.sin(yaw));
  cam.lookAt(cam.position.clone().add(d));
}

/* Render, through a gamma pass when the file records a display gamma (DarkPlaces' v_gamma). */
export function renderWithGamma(renderer, scene, cam, gamma, W, H) {
  if (!(Math.abs(gamma - 1) > 1e-3)) { renderer.render(scene, cam); return; }
  const rt = new THREE.WebGLRenderTarget(W, H, { samples: 4 });
  renderer.setRenderTarget(rt);
  renderer.render(scene, cam);
  renderer.setRenderTarget(null);
  const post = new THREE.Scene();
  const quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), new THREE.ShaderMaterial({
    uniforms: { src: { value: rt.texture }, g: { value: 1 / gamma } },
    vertexShader: 'varying vec2 vUv; void main() { vUv = uv; gl_Position = vec4(position.xy, 0.0, 1.0); }',
    fragmentShader: 'uniform sampler2D src; uniform float g; varying vec2 vUv;' +
      'void main() { vec4 c = texture2D(src, vUv); gl_FragColor = vec4(pow(c.rgb, vec3(g)), 1.0); }',
    depthTest: false, depthWrite: false }));
  post.add(quad);
  renderer.render(post, new THREE.Camera());
  rt.dispose();
  quad.geometry.dispose();
  quad.material.dispose();
}
