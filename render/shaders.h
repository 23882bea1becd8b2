// GLSL 3.30 sources of the renderer's programs.
#pragma once

namespace contactlab {
namespace shaders {

// Shared lighting: a headlight at the eye (Blinn-Phong with exponent 48), a weak fixed key light
// from above and a hemispherical ambient term, so faces turned to the camera still read as 3D.
// Powers are products of squares: a software rasterizer evaluates pow() as exp2(y log2(x)), two
// polynomial approximations per pixel.
#define CONTACTLAB_GLSL_SHADE                                                      \
  "float Pow48(float x) {\n"                                                       \
  "  float x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8;\n"               \
  "  return x16 * x16 * x16;\n"                                                    \
  "}\n"                                                                           \
  "vec3 Shade(vec3 albedo, vec3 n, vec3 v, float specular) {\n"                    \
  "  float diffuse = max(dot(n, v), 0.0);\n"                                       \
  "  vec3 h = v;  // headlight: light direction equals view direction\n"           \
  "  float spec = Pow48(max(dot(n, h), 0.0));\n"                                   \
  "  float key = max(dot(n, normalize(vec3(0.35, 0.25, 1.0))), 0.0);\n"            \
  "  float hemi = 0.5 + 0.5 * n.z;\n"                                              \
  "  vec3 ambient = mix(vec3(0.13, 0.12, 0.12), vec3(0.24, 0.26, 0.30), hemi);\n"  \
  "  return albedo * (ambient + 0.62 * diffuse + 0.22 * key) + vec3(specular * spec);\n" \
  "}\n"

// Bodies: lit shaded meshes in their geometry frame.
constexpr const char* kMeshVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
uniform mat4 u_model;
uniform mat4 u_view_proj;
uniform mat3 u_normal_matrix;
out vec3 v_world;
out vec3 v_normal;
void main() {
  vec4 w = u_model * vec4(a_pos, 1.0);
  v_world = w.xyz;
  v_normal = u_normal_matrix * a_normal;
  gl_Position = u_view_proj * w;
}
)";

constexpr const char* kMeshFragment = "#version 330 core\n" CONTACTLAB_GLSL_SHADE R"(
in vec3 v_world;
in vec3 v_normal;
uniform vec4 u_color;
uniform vec3 u_eye;
// > 0 for a ghost of compare mode: the shaded tint at u_color.a facing the camera, turning into
// the unlit tint with this alpha at the silhouette (a rim that outlines the copy).
uniform float u_rim_alpha;
out vec4 frag_color;

void main() {
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  vec3 v = normalize(u_eye - v_world);
  vec3 c = Shade(u_color.rgb, n, v, 0.28);
  float a = u_color.a;
  if (u_rim_alpha > 0.0) {
    float rim = 1.0 - abs(dot(n, v));
    rim *= rim;
    c = mix(c, u_color.rgb, rim);
    a = mix(u_color.a, u_rim_alpha, rim);
  }
  frag_color = vec4(c, a);
}
)";

// Half-spaces and the floor grid: a flat square in the local xy plane of its geometry frame,
// with grid lines, fading out beyond u_fade_radius from the view target. Planes cover most of
// the viewport several times over (floor and walls), so this program does per pixel only what
// varies per pixel: the normal is constant, grids have no specular highlight, and the ambient
// and key light terms of each face come in as uniforms (same lighting as Shade()).
constexpr const char* kPlaneVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
uniform mat4 u_model;
uniform mat4 u_view_proj;
uniform float u_inv_spacing;
out vec3 v_world;
out vec2 v_grid;
void main() {
  vec4 w = u_model * vec4(a_pos, 1.0);
  v_world = w.xyz;
  v_grid = a_pos.xy * u_inv_spacing;
  gl_Position = u_view_proj * w;
}
)";

constexpr const char* kPlaneFragment = R"(#version 330 core
in vec3 v_world;
in vec2 v_grid;
uniform vec4 u_color;
uniform vec3 u_eye;
uniform vec3 u_normal;      // world normal of the front face
uniform vec3 u_base_front;  // ambient + key light factor of the front face
uniform vec3 u_base_back;   // the same for the back face
uniform int u_grid;
uniform vec3 u_fade_center;
uniform float u_fade_radius;
out vec4 frag_color;

void main() {
  vec3 d = v_world - u_fade_center;
  float r2 = dot(d, d);
  if (r2 > u_fade_radius * u_fade_radius) discard;
  float alpha = u_color.a * (1.0 - smoothstep(0.4 * u_fade_radius, u_fade_radius, sqrt(r2)));
  vec3 to_eye = u_eye - v_world;
  float facing = dot(u_normal, to_eye) * inversesqrt(dot(to_eye, to_eye));
  float diffuse = max(gl_FrontFacing ? facing : -facing, 0.0);
  vec3 base = gl_FrontFacing ? u_base_front : u_base_back;
  float darken = 0.0;
  if (u_grid == 1) {
    // Minor lines 1 px wide, major lines (every 10th) 2 px; both fade out where they get
    // denser than a few pixels apart (distance, grazing angles).
    vec2 w = max(fwidth(v_grid), vec2(1e-6));
    float wmax = max(w.x, w.y);
    vec2 g = abs(fract(v_grid - 0.5) - 0.5) / w;
    float minor = (1.0 - min(min(g.x, g.y), 1.0)) * (1.0 - smoothstep(0.12, 0.45, wmax));
    vec2 g10 = abs(fract(0.1 * v_grid - 0.5) - 0.5) / (0.2 * w);
    float major =
        (1.0 - min(min(g10.x, g10.y), 1.0)) * (1.0 - smoothstep(0.12, 0.45, 0.1 * wmax));
    darken = 0.55 * max(0.55 * minor, major);
  }
  frag_color = vec4(u_color.rgb * (1.0 - darken) * (base + 0.62 * diffuse), alpha);
}
)";

// Instanced glyphs (render/glyph_instances.h): a unit-mesh vertex a_unit = (c, s, part, 0) placed
// per instance in the instance's frame (axis, e1, e2 = axis x e1), computed on the CPU. The
// formulas are those of PlaceArrowVertex / PlaceConeVertex (their CPU mirror, tested without GL):
// keep the two in step.

// Arrows: per instance the tail and shaft radius, the unit axis and length, e1 and the head's
// length, the colour. The head is 2.4 radii wide.
constexpr const char* kArrowVertex = R"(#version 330 core
layout(location = 0) in vec4 a_unit;
layout(location = 1) in vec4 i_from;  // xyz tail, w shaft radius
layout(location = 2) in vec4 i_axis;  // xyz unit axis, w length
layout(location = 3) in vec4 i_e1;    // xyz e1, w head length
layout(location = 4) in vec4 i_color;
uniform mat4 u_view_proj;
out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;
void main() {
  vec3 from = i_from.xyz;
  float r = i_from.w;
  vec3 u = i_axis.xyz;
  float head_length = i_e1.w;
  float head_radius = 2.4 * r;
  vec3 head_base = from + (i_axis.w - head_length) * u;
  float slope = head_radius / head_length;
  vec3 radial = a_unit.x * i_e1.xyz + a_unit.y * cross(u, i_e1.xyz);
  int part = int(a_unit.z + 0.5);
  vec3 p;
  vec3 n;
  if (part == 0) {         // shaft at the tail
    p = from + r * radial;
    n = radial;
  } else if (part == 1) {  // shaft where the head starts
    p = head_base + r * radial;
    n = radial;
  } else if (part == 2) {  // head rim
    p = head_base + head_radius * radial;
    n = radial + slope * u;
  } else if (part == 3) {  // tip
    p = from + i_axis.w * u;
    n = radial + slope * u;
  } else if (part == 4) {  // centre of the head's base disk
    p = head_base;
    n = -u;
  } else {                 // rim of the head's base disk
    p = head_base + head_radius * radial;
    n = -u;
  }
  v_world = p;
  v_normal = normalize(n);
  v_color = i_color;
  gl_Position = u_view_proj * vec4(p, 1.0);
}
)";

// Cones: per instance the apex and height, the unit axis and base radius, e1 and the surface's
// alpha, the outline colour. u_outline = 1 draws the outline mesh (rim and generators) in the
// outline colour, 0 the lateral surface in the colour's RGB with the surface alpha.
constexpr const char* kConeVertex = R"(#version 330 core
layout(location = 0) in vec4 a_unit;
layout(location = 1) in vec4 i_apex;  // xyz apex, w height
layout(location = 2) in vec4 i_axis;  // xyz unit axis, w base radius
layout(location = 3) in vec4 i_e1;    // xyz e1, w surface alpha
layout(location = 4) in vec4 i_color;
uniform mat4 u_view_proj;
uniform int u_outline;
out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;
void main() {
  vec3 u = i_axis.xyz;
  float height = i_apex.w;
  float radius = i_axis.w;
  // cos and sin of the half-angle from tan = radius / height.
  float t = radius / height;
  float c = inversesqrt(1.0 + t * t);
  float s = t * c;
  vec3 radial = a_unit.x * i_e1.xyz + a_unit.y * cross(u, i_e1.xyz);
  // Outward normal of the lateral surface: cos θ radial − sin θ axis.
  v_normal = normalize(c * radial - s * u);
  vec3 p = a_unit.z < 0.5 ? i_apex.xyz : i_apex.xyz + height * u + radius * radial;
  v_world = p;
  v_color = u_outline == 1 ? i_color : vec4(i_color.rgb, i_e1.w);
  gl_Position = u_view_proj * vec4(p, 1.0);
}
)";

// Lit glyph surfaces (arrows, cone surfaces), both sides.
constexpr const char* kGlyphFragment = R"(#version 330 core
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;
uniform vec3 u_eye;
out vec4 frag_color;
void main() {
  vec3 n = normalize(v_normal);
  vec3 v = normalize(u_eye - v_world);
  float d = abs(dot(n, v));
  // d^40 as a product of squares (see Pow48).
  float d2 = d * d, d4 = d2 * d2, d8 = d4 * d4, d32 = d8 * d8 * d8 * d8;
  float spec = d32 * d8;
  frag_color = vec4(v_color.rgb * (0.55 + 0.45 * d) + vec3(0.18 * spec), v_color.a);
}
)";

// Lines with per-vertex colour, unlit.
constexpr const char* kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
uniform mat4 u_view;
uniform mat4 u_proj;
out vec4 v_color;
void main() {
  v_color = a_color;
  gl_Position = u_proj * u_view * vec4(a_pos, 1.0);
}
)";

constexpr const char* kLineFragment = R"(#version 330 core
in vec4 v_color;
out vec4 frag_color;
void main() { frag_color = v_color; }
)";

// Round screen-space points with a dark rim; the centre keeps the exact colour.
constexpr const char* kPointVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
layout(location = 2) in float a_size;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_pixel_scale;
out vec4 v_color;
void main() {
  v_color = a_color;
  gl_Position = u_proj * u_view * vec4(a_pos, 1.0);
  gl_PointSize = a_size * u_pixel_scale;
}
)";

constexpr const char* kPointFragment = R"(#version 330 core
in vec4 v_color;
out vec4 frag_color;
void main() {
  float r = length(gl_PointCoord - vec2(0.5)) * 2.0;
  if (r > 1.0) discard;
  vec3 rim = v_color.rgb * 0.25;
  frag_color = vec4(r > 0.72 ? rim : v_color.rgb, v_color.a);
}
)";

// Full-screen vertical gradient (no vertex attributes; gl_VertexID makes one big triangle) at the
// far plane (depth 1, the depth buffer's clear value).
constexpr const char* kBackgroundVertex = R"(#version 330 core
out float v_t;
void main() {
  vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);
  v_t = 0.5 * (p.y + 1.0);
  gl_Position = vec4(p, 1.0, 1.0);
}
)";

constexpr const char* kBackgroundFragment = R"(#version 330 core
in float v_t;
uniform vec3 u_top;
uniform vec3 u_bottom;
out vec4 frag_color;
void main() { frag_color = vec4(mix(u_bottom, u_top, clamp(v_t, 0.0, 1.0)), 1.0); }
)";

}  // namespace shaders
}  // namespace contactlab
