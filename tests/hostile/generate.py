#!/usr/bin/env python3
"""Generates the hostile-input corpus of `contactlab validate` / `contactlab run`.

  generate.py OUT_DIR [--source-dir DIR]

writes OUT_DIR/cases/* (scene files, meshes, a FIFO), OUT_DIR/cases.json (how each case is run)
and OUT_DIR/manifest.tsv (what each case must give). tests/hostile/manifest.tsv is the committed
copy of the manifest: run_hostile.py refuses to run when they differ, so every change of an
expectation shows in a diff of that file.

Expected classes (a case may allow several, joined by `|`):
  refused          validate and run exit 2; stderr names the file, and for a case with a known
                   line `FILE:LINE:` (the line of the offending value); CLI cases name the option.
  accepted         validate exits 0; `run --steps N --stats S` exits 0 with a summary whose
                   numbers are all finite and stats without null / NaN / inf.
  failed_reported  validate exits 0; run exits 3 and its summary counts the failed steps.
Never: a signal, a timeout, memory beyond the limit, exit 1 or any other status.

Only the Python standard library is used.
"""

import argparse
import json
import math
import os
import re
import pathlib
import shutil
import struct
import sys

R, A, F = "refused", "accepted", "failed_reported"
HONEST = "accepted|failed_reported"  # a valid scene whose numbers may blow up: finite or reported
ANY = "refused|accepted|failed_reported"


class Corpus:
    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.dir = self.out / "cases"
        self.cases = []
        self.ids = set()

    def write(self, name, data):
        path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        path.write_bytes(data)
        return path

    def add(self, cid, expect, note, validate=None, run=None, line=None, mention=None,
            unchanged=None):
        """validate / run: argument lists after the program name, or None (not run).
        `{case}` in an argument is replaced by the case directory's absolute path."""
        assert cid not in self.ids, cid
        note = note.replace("\t", "\\t").replace("\n", "\\n")
        self.ids.add(cid)
        self.cases.append(dict(id=cid, expect=expect, note=note, validate=validate, run=run,
                               line=line, mention=mention, unchanged=unchanged))

    def scene(self, cid, data, expect, note, line=None, steps=10, ext=".yaml", sets=()):
        """A scene file case: `validate FILE` and `run FILE --steps N --stats S`."""
        name = cid + ext
        self.write(name, data)
        sets_args = [a for s in sets for a in ("--set", s)]
        self.add(cid, expect, note, validate=["validate", "{case}/" + name] + sets_args,
                 run=["run", "{case}/" + name, "--steps", str(steps), "--stats",
                      "{case}/" + cid + ".stats.jsonl"] + sets_args,
                 line=line, mention="{case}/" + name)

    def finish(self):
        cases_json = self.out / "cases.json"
        cases_json.write_text(json.dumps(self.cases, indent=1))
        with open(self.out / "manifest.tsv", "w") as f:
            f.write("# id\texpected\tline\tnote\n")
            for c in self.cases:
                f.write("%s\t%s\t%s\t%s\n" % (c["id"], c["expect"],
                                              "-" if c["line"] is None else c["line"], c["note"]))


# ---------------------------------------------------------------------------------------------
# Valid bases. Block style, one field per line, so a mutated value has a known line.

BASE = """\
description: "hostile base: a box and a ball on the ground"
time_step: 0.01
duration: 1.0
gravity: [0, 0, -9.81]
integrator: symplectic_euler
contact_margin: 0.001
solver:
  sigma: 1.0e-3
  beta: 1.0
  rel_tolerance: 1.0e-6
  max_iterations: 100
free_motion:
  max_iterations: 20
  tolerance: 1.0e-12
camera:
  target: [0, 0, 0]
  distance: 2
  azimuth: 30
  elevation: 20
materials:
  - name: wood
    stiffness: 1.0e8
    dissipation_time: 0.01
    friction: 0.5
bodies:
  - name: ground
    static: true
    geoms:
      - shape: half_space
        material: wood
  - name: box
    mass: 1.0
    position: [0, 0, 0.0495]
    velocity: [0, 0, 0]
    angular_velocity: [0, 0, 0]
    rotation: {rpy_deg: [0, 0, 0]}
    geoms:
      - shape: box
        size: [0.1, 0.1, 0.1]
        material: wood
  - name: ball
    density: 1000
    position: [0.3, 0, 0.0495]
    geoms:
      - shape: sphere
        radius: 0.05
        material: wood
"""

CHAIN = """\
description: "hostile base: two hinged links and a slider"
time_step: 0.002
materials:
  - name: metal
    stiffness: 1.0e9
    dissipation_time: 0.002
    friction: 0.4
bodies:
  - name: floor
    static: true
    geoms: [{shape: half_space, material: metal}]
  - name: link1
    mass: 0.5
    position: [0.1, 0, 1.0]
    joint:
      type: revolute
      axis: [0, 1, 0]
      child_frame: {position: [-0.1, 0, 0]}
      damping: 0.01
      limits: [-1.75, 1.75]
      spring:
        stiffness: 5
        reference: 0
      actuator:
        kp: 50
        kd: 2
        effort_limit: 10
        setpoint:
          sine:
            amplitude: 0.5
            frequency: 1
    joint_position: 0.1
    joint_velocity: 0
    geoms: [{shape: capsule, radius: 0.025, length: 0.2, rotation: {axis_angle: [0, 1, 0, 90]}}]
  - name: link2
    mass: 0.5
    position: [0.4, 0, 1.0]
    joint: {type: revolute, parent: link1, axis: [0, 1, 0], child_frame: {position: [-0.1, 0, 0]}}
    geoms: [{shape: capsule, radius: 0.025, length: 0.2, rotation: {axis_angle: [0, 1, 0, 90]}}]
  - name: slider
    mass: 1.0
    position: [0, 1, 0.5]
    joint: {type: prismatic, axis: [1, 0, 0], limits: [-0.5, 0.5]}
    geoms: [{shape: box, size: [0.1, 0.1, 0.1]}]
loads:
  - name: push
    body: slider
    point: [0, 0, 0]
    force: [1, 0, 0]
    frame: world
"""

GENERATOR = """\
description: "hostile base: a generated grid"
time_step: 0.01
templates:
  - name: ball
    density: 800
    geoms: [{shape: sphere, radius: 0.03}]
bodies:
  - name: ground
    static: true
    geoms: [{shape: half_space}]
generators:
  - grid:
      name: pile
      templates: [ball]
      count: [2, 2, 2]
      spacing: [0.1, 0.1, 0.1]
      origin: [0, 0, 0.1]
      jitter: {position: 0.001, rotation: 5, seed: 1}
"""


def line_of(text, needle, start=1):
    """1-based line number of the first line containing `needle`, at or after line `start`."""
    for i, l in enumerate(text.splitlines(), 1):
        if i >= start and needle in l:
            return i
    raise KeyError(needle)


def replace_line(text, lineno, new_line):
    lines = text.splitlines()
    lines[lineno - 1] = new_line
    return "\n".join(lines) + "\n"


def set_value(text, key, value, start=1):
    """Replaces `key: ...` (first occurrence at or after line `start`) by `key: value`; returns
    (new text, line)."""
    ln = line_of(text, key + ":", start)
    lines = text.splitlines()
    old = lines[ln - 1]
    indent = old[: len(old) - len(old.lstrip())]
    if old.lstrip().startswith("- "):
        indent += "- "
    # The old value's nested lines (indented deeper than the key) go with it.
    column = old.index(key + ":")
    end = ln
    while end < len(lines) and (not lines[end].strip() or
                                len(lines[end]) - len(lines[end].lstrip()) > column):
        end += 1
    lines[ln - 1:end] = [indent + key + ": " + value]
    return "\n".join(lines) + "\n", ln


# ---------------------------------------------------------------------------------------------
# Mesh writers.

def obj(vertices, faces):
    s = "".join("v %r %r %r\n" % tuple(v) for v in vertices)
    s += "".join("f " + " ".join(str(i) for i in f) + "\n" for f in faces)
    return s


CUBE_V = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
CUBE_F = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]


def ply_binary(n_header, vertices, faces, face_count=None):
    head = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\n"
            "property float x\nproperty float y\nproperty float z\n"
            "element face %d\nproperty list uchar int vertex_indices\nend_header\n"
            % (n_header, len(faces) if face_count is None else face_count)).encode()
    body = b"".join(struct.pack("<fff", *v) for v in vertices)
    body += b"".join(struct.pack("<B", len(f)) + struct.pack("<%di" % len(f), *f) for f in faces)
    return head + body


def stl_binary(tris, count=None):
    data = b"\0" * 80 + struct.pack("<I", len(tris) if count is None else count)
    for t in tris:
        data += struct.pack("<3f", 0, 0, 0)
        for v in t:
            data += struct.pack("<3f", *v)
        data += b"\0\0"
    return data


TETRA = [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((0, 0, 0), (0, 0, 1), (1, 0, 0)),
         ((0, 0, 0), (0, 1, 0), (0, 0, 1)), ((1, 0, 0), (0, 0, 1), (0, 1, 0))]


def gltf(nodes, extra=None, buffer_uri=None, byte_length=None, accessor_count=3):
    """A glTF 2.0 with one triangle mesh (data URI unless buffer_uri is given)."""
    import base64
    pts = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    uri = buffer_uri if buffer_uri is not None else \
        "data:application/octet-stream;base64," + base64.b64encode(pts).decode()
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"uri": uri, "byteLength": byte_length if byte_length is not None else 36}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": accessor_count,
                       "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}],
    }
    if extra:
        doc.update(extra)
    return json.dumps(doc)


def mesh_scene(path, extra_geom=""):
    return ("time_step: 0.01\nbodies:\n  - name: ground\n    static: true\n"
            "    geoms: [{shape: half_space}]\n  - name: rock\n    density: 500\n"
            "    position: [0, 0, 0.5]\n    geoms:\n      - shape: mesh\n"
            "        file: %s\n%s" % (json.dumps(str(path)), extra_geom))


# ---------------------------------------------------------------------------------------------

def gen_syntax(c):
    base = BASE
    ln = line_of(base, "description")
    c.scene("syntax_unterminated_dquote", replace_line(base, ln, 'description: "no end'), R,
            "unterminated double quote", line=None)
    c.scene("syntax_unterminated_squote", replace_line(base, ln, "description: 'no end"), R,
            "unterminated single quote")
    lg = line_of(base, "gravity")
    c.scene("syntax_unterminated_flow", replace_line(base, lg, "gravity: [0, 0, -9.81"), R,
            "unterminated flow sequence")
    c.scene("syntax_unterminated_map", replace_line(base, lg, "gravity: {x: 0"), R,
            "unterminated flow map")
    lm = line_of(base, "    mass: 1.0")
    c.scene("syntax_tab_indent", replace_line(base, lm, "\tmass: 1.0"), R,
            "tab used for indentation", line=lm)
    c.scene("syntax_tab_after_dash",
            base.replace("      - shape: box", "      -\tshape: box"), R, "tab after a dash")
    c.scene("syntax_bad_indent", replace_line(base, lm, "      mass: 1.0"), R,
            "inconsistent indentation")
    c.scene("syntax_two_documents", base + "---\n" + base, R,
            "two YAML documents in one scene file", line=base.count("\n") + 1)
    c.scene("syntax_two_documents_empty_second", base + "---\n", R,
            "a second (empty) document")
    c.scene("syntax_document_end_then_garbage", base + "...\ngarbage: [\n", R,
            "garbage after the document end marker")
    c.scene("syntax_duplicate_key", BASE.replace("time_step: 0.01\n",
                                                 "time_step: 0.01\ntime_step: 0.02\n"), R,
            "the same key twice in a map", line=3)
    c.scene("syntax_duplicate_key_nested",
            BASE.replace("    mass: 1.0\n", "    mass: 1.0\n    mass: 2.0\n"), R,
            "the same key twice in a body", line=lm + 1)
    n = 100000
    c.scene("syntax_deep_flow_seq_100k", "description: x\nx: " + "[" * n + "]" * n + "\n", R,
            "100 000 nested flow sequences")
    c.scene("syntax_deep_flow_map_100k", "x: " + "{a: " * n + "1" + "}" * n + "\n", R,
            "100 000 nested flow maps")
    c.scene("syntax_deep_flow_seq_unclosed", "x: " + "[" * n + "\n", R,
            "100 000 unclosed flow sequences")
    c.scene("syntax_deep_bodies_value", "bodies: " + "[" * n + "]" * n + "\n", R,
            "100 000 nested sequences where bodies are expected")
    depth = 3000
    block = "".join("  " * i + "a:\n" for i in range(depth)) + "  " * depth + "b: 1\n"
    c.scene("syntax_deep_block_3000", block, R, "3000 nested block maps")
    c.scene("syntax_deep_block_dashes", "x:\n" + "".join("  " * i + "-\n" for i in range(depth)),
            R, "3000 nested block sequences")
    # Billion laughs: 10 levels of 10 aliases = 10^10 leaves if expanded.
    lol = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lol.append("a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)))
    bomb = "\n".join(lol) + "\n"
    c.scene("alias_bomb_unknown_keys", base + bomb, R, "billion laughs under unknown keys")
    laughs = "".join("x%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)
                                           if i else "x, x, x, x, x, x, x, x, x, x")
                     for i in range(10))
    c.scene("alias_bomb_description", laughs + "description: *a9\n", R,
            "billion laughs as the description")
    c.scene("alias_bomb_loads", laughs + "loads: *a9\n", R, "billion laughs as the loads list")
    c.scene("alias_bomb_materials",
            "".join("x%d: &m%d [%s]\n" % (i, i, ", ".join(["*m%d" % (i - 1)] * 10)
                                          if i else "{name: a}, {name: b}")
                    for i in range(0, 10)) + "materials: *m9\n", R,
            "billion laughs as the materials list")
    c.scene("alias_bomb_gravity",
            "".join("x%d: &g%d [%s]\n" % (i, i, ", ".join(["*g%d" % (i - 1)] * 10)
                                          if i else "0, 0, 0")
                    for i in range(0, 10)) + "gravity: *g9\n", R,
            "billion laughs as the gravity vector")
    # An anchor used inside its own collection: yaml-cpp builds a node that contains itself.
    c.scene("alias_recursive_unknown_key", base + "x: &r [1, *r]\n", R,
            "a sequence that contains itself, under an unknown key")
    c.scene("alias_recursive_bodies", base.replace("bodies:\n", "bodies: &r\n", 1) +
            "  - *r\n", R, "the bodies list contains itself")
    c.scene("alias_recursive_map", base + "camera2: &m {a: *m}\n", R,
            "a map that contains itself")
    c.scene("alias_recursive_gravity", base.replace("gravity: [0, 0, -9.81]", "gravity: &g [0, 0, *g]"),
            R, "gravity contains itself", line=line_of(base, "gravity"))
    c.scene("alias_undefined", base.replace("gravity: [0, 0, -9.81]", "gravity: *nowhere"), R,
            "alias of an undefined anchor")
    c.scene("alias_valid_reuse",
            base.replace("position: [0, 0, 0.0495]", "position: &p [0, 0, 0.0495]")
                .replace("position: [0.3, 0, 0.0495]", "position: [0.3, 0, 0.0495]"), A,
            "an anchor used once (valid)")
    c.scene("merge_key", base.replace("  - name: ball\n", "  - <<: {mass: 1}\n    name: ball\n"),
            R, "merge keys are not supported", line=line_of(base, "  - name: ball"))
    c.scene("bom_utf8", b"\xef\xbb\xbf" + BASE.encode(), A, "UTF-8 byte order mark (valid YAML)")
    c.scene("bom_utf16le", b"\xff\xfe" + BASE.encode("utf-16-le"), "refused|accepted",
            "UTF-16 LE with byte order mark")
    # YAML detects UTF-16 from the NUL bytes of a first ASCII character (YAML 1.2, 5.2).
    c.scene("utf16_without_bom", BASE.encode("utf-16-le"), "refused|accepted",
            "UTF-16 LE without a byte order mark")
    ld = line_of(base, "description")
    c.scene("nul_in_value", replace_line(base, ld, 'description: "a\0b"'), "refused|accepted",
            "NUL byte inside a quoted string")
    c.scene("nul_in_plain", replace_line(base, lm, "    mass: 1\0.0"), R,
            "NUL byte inside a number", line=lm)
    c.scene("nul_at_end", base + "\0", "refused|accepted", "NUL byte at the end")
    c.scene("nul_only", b"\0" * 1000, R, "1000 NUL bytes")
    c.scene("invalid_utf8_comment", base.encode() + b"# \xff\xfe\xc3\x28\n", "refused|accepted",
            "invalid UTF-8 in a comment")
    c.scene("invalid_utf8_description",
            replace_line(base, ld, "description: X").encode().replace(b"description: X",
                                                                      b"description: \xc3\x28\xff"),
            "refused|accepted", "invalid UTF-8 in the description")
    c.scene("invalid_utf8_name",
            base.encode().replace(b"name: ball", b"name: b\xffall"), "refused|accepted",
            "invalid UTF-8 in a body name")
    c.scene("invalid_utf8_key", base.encode() + b"\xff\xfe: 1\n", R,
            "invalid UTF-8 as a key")
    c.scene("overlong_utf8", base.encode() + b"x\xc0\xaf: 1\n", R, "overlong UTF-8 in a key")
    c.scene("huge_description_5MB", replace_line(base, ld, "description: " + "x" * 5_000_000),
            A, "a 5 MB description line")
    c.scene("huge_comment_5MB", "#" + "y" * 5_000_000 + "\n" + base, A, "a 5 MB comment line")
    c.scene("huge_key_1MB", base + "k" * 1_000_000 + ": 1\n", R, "an unknown 1 MB key",
            line=base.count("\n") + 1)
    c.scene("huge_number_1M_digits", replace_line(base, lm, "    mass: 1" + "0" * 1_000_000), R,
            "a mass with a million digits (overflows to inf)", line=lm)
    c.scene("huge_flow_list_200k", base + "x: [" + "0," * 200_000 + "0]\n", R,
            "an unknown key with a 200 000 item list", line=base.count("\n") + 1)
    c.scene("empty_file", "", "refused|accepted", "empty file")
    c.scene("only_comment", "# nothing\n", "refused|accepted", "only a comment")
    c.scene("scalar_document", "42\n", R, "the document is a number", line=1)
    c.scene("list_document", "- 1\n- 2\n", R, "the document is a list", line=1)
    c.scene("null_document", "~\n", "refused|accepted", "the document is null")
    c.scene("binary_garbage", bytes(range(256)) * 64, R, "binary garbage")
    c.scene("directive_yaml_9", "%YAML 9.9\n---\n" + base, "refused|accepted",
            "YAML version directive 9.9")
    c.scene("tag_unknown", base.replace("mass: 1.0", "mass: !!binary AAAA"), R,
            "a binary-tagged mass", line=lm)
    c.scene("tag_str_number", base.replace("mass: 1.0", "mass: !!str 1.0"), "refused|accepted",
            "a number tagged as string")
    c.scene("crlf_line_ends", base.replace("\n", "\r\n"), A, "CRLF line ends")
    c.scene("cr_only_line_ends", base.replace("\n", "\r"), "refused|accepted", "CR line ends")
    c.scene("complex_key", base + "? [a, b]\n: 1\n", R, "a sequence used as a key",
            line=base.count("\n") + 1)
    c.scene("null_key", base + "~: 1\n", R, "a null key", line=base.count("\n") + 1)


def gen_types(c):
    wrongs = {"str": "abc", "map": "{a: 1}", "list": "[1, 2]", "bool": "true", "null": "~",
              "empty": '""'}
    fields = [  # (key, start needle, wrong kinds to try)
        ("time_step", None, ["str", "map", "list", "bool", "null", "empty"]),
        ("duration", None, ["str", "list", "null"]),
        ("gravity", None, ["str", "map", "bool", "null"]),
        ("integrator", None, ["map", "list", "str"]),
        ("contact_margin", None, ["str", "list"]),
        ("solver", None, ["str", "list", "null"]),
        ("sigma", "solver:", ["str", "map", "list"]),
        ("max_iterations", "solver:", ["str", "list", "bool"]),
        ("free_motion", None, ["str", "list"]),
        ("camera", None, ["str", "list"]),
        ("target", "camera:", ["str", "map"]),
        ("materials", None, ["str", "map", "bool"]),
        ("stiffness", "materials:", ["str", "list", "map"]),
        ("friction", "materials:", ["str", "list", "null"]),
        ("bodies", None, ["str", "map", "bool"]),
        ("static", "name: ground", ["str", "list", "map"]),
        ("mass", "name: box", ["str", "list", "map", "null", "bool"]),
        ("position", "name: box", ["str", "map", "null", "bool"]),
        ("velocity", "name: box", ["str", "map"]),
        ("rotation", "name: box", ["str", "list", "null"]),
        ("geoms", "name: box", ["str", "map", "null"]),
        ("size", "name: box", ["str", "map", "bool"]),
        ("shape", "name: box", ["map", "list", "null"]),
        ("material", "name: box", ["map", "list", "null"]),
        ("radius", "name: ball", ["str", "list", "map"]),
        ("density", "name: ball", ["str", "list"]),
        ("name", "name: ball", ["map", "list", "null"]),
    ]
    for key, start, kinds in fields:
        st = line_of(BASE, start) if start else 1
        for k in kinds:
            text, ln = set_value(BASE, key, wrongs[k], st)
            c.scene("type_%s_%s" % (key, k), text, R, "%s given a %s" % (key, k), line=ln)
    # Wrong list lengths and element types.
    for key, start, val, note in [
        ("gravity", None, "[0, 0]", "2 components"),
        ("gravity", None, "[0, 0, -9.81, 0]", "4 components"),
        ("gravity", None, "[0, 0, x]", "a string component"),
        ("gravity", None, "[0, 0, [1]]", "a list component"),
        ("position", "name: box", "[]", "no components"),
        ("size", "name: box", "[0.1, 0.1]", "2 components"),
        ("size", "name: box", "0.1", "a scalar"),
        ("rotation", "name: box", "{rpy_deg: [0, 0]}", "2 angles"),
        ("rotation", "name: box", "{rpy_deg: [0, 0, 0], quat: [1, 0, 0, 0]}", "two forms"),
        ("rotation", "name: box", "{quat: [0, 0, 0, 0]}", "a zero quaternion"),
        ("rotation", "name: box", "{axis_angle: [0, 0, 0, 10]}", "a zero axis"),
        ("rotation", "name: box", "{euler: [0, 0, 0]}", "an unknown form"),
        ("rotation", "name: box", "{}", "no form"),
        ("integrator", None, "runge_kutta_99", "an unknown integrator"),
        ("shape", "name: box", "blob", "an unknown shape"),
        ("static", "name: ground", "2", "a number as bool"),
    ]:
        st = line_of(BASE, start) if start else 1
        text, ln = set_value(BASE, key, val, st)
        cid = "shape_%s_%s" % (key, note.replace(" ", "_").replace("-", ""))
        c.scene(cid, text, R, "%s: %s" % (key, note), line=ln)
    lm = line_of(BASE, "materials:")
    c.scene("type_material_item_scalar", BASE.replace("  - name: wood\n", "  - wood\n  - name: wood\n"),
            R, "a materials item that is a string", line=lm + 1)
    c.scene("type_body_item_list", BASE.replace("  - name: ground\n", "  - [1, 2]\n  - name: ground\n"),
            R, "a bodies item that is a list", line=line_of(BASE, "  - name: ground"))
    c.scene("type_unknown_top_key", BASE + "bodys: []\n", R, "misspelled top-level key",
            line=BASE.count("\n") + 1)
    c.scene("type_unknown_body_key", BASE.replace("    mass: 1.0\n", "    mas: 1.0\n    mass: 1.0\n"),
            R, "misspelled body key", line=line_of(BASE, "    mass: 1.0"))
    c.scene("type_mass_and_density", BASE.replace("    mass: 1.0\n", "    mass: 1.0\n    density: 5\n"),
            R, "mass and density both given")
    c.scene("type_static_with_mass", BASE.replace("    static: true\n", "    static: true\n    mass: 1\n"),
            R, "a static body with a mass")
    c.scene("type_box_size_and_half", BASE.replace("        size: [0.1, 0.1, 0.1]\n",
                                                  "        size: [0.1, 0.1, 0.1]\n        half_extents: [1, 1, 1]\n"),
            R, "size and half_extents both given")
    c.scene("type_halfspace_on_dynamic", BASE.replace("      - shape: sphere\n        radius: 0.05\n",
                                                     "      - shape: half_space\n"),
            R, "a half-space on a dynamic body")
    c.scene("type_dynamic_without_mass", BASE.replace("    density: 1000\n", ""), "refused|accepted",
            "a body with geoms but neither mass nor density (static by rule)")


def extreme(val, exp):
    """A value at the edge of double range (1e30 and beyond, or subnormal) inside a documented
    range: refusing it with a message is as honest as running it, so any honest class holds."""
    if exp == HONEST and re.search(r"e-?(3\d\d|30)\b", val):
        return ANY
    return exp


def gen_ranges(c):
    # (key, start needle, [(value, expected)], note)
    bad = [("-1", R), ("0", R), (".nan", R), (".inf", R), ("-.inf", R), ("1e308", R),
           ("1e400", R), ("-1e-320", R)]
    table = [
        ("time_step", None, [("-1", R), ("0", R), (".nan", R), (".inf", R), ("-.inf", R),
                             ("1e308", R), ("1.5", R), ("1e400", R), ("1e-400", R),
                             ("1e-320", ANY), ("1", HONEST), ("1e-9", ANY)]),
        ("duration", None, [("-1", R), ("0", R), (".nan", R), (".inf", R), ("1e308", R),
                            ("1e7", R), ("1e-320", "refused|accepted")]),
        ("contact_margin", None, [("-1", R), (".nan", R), (".inf", R), ("2", R), ("0", A),
                                  ("1", HONEST), ("1e-320", HONEST)]),
        ("sigma", "solver:", bad + [("2", R), ("1e-320", ANY), ("1", HONEST)]),
        ("beta", "solver:", bad + [("11", R), ("1e-320", ANY), ("10", HONEST)]),
        ("rel_tolerance", "solver:", bad + [("1", R), ("1e-320", HONEST)]),
        ("max_iterations", "solver:", [("0", R), ("-1", R), ("1.5", R), ("1e308", R),
                                       ("99999999999999999999", R), ("10001", R), (".nan", R),
                                       ("1", HONEST), ("10000", HONEST)]),
        ("max_iterations", "free_motion:", [("0", R), ("-5", R), ("2.5", R), ("1001", R),
                                            ("99999999999999999999", R), ("1", HONEST)]),
        ("tolerance", "free_motion:", bad + [("1", R), ("1e-320", HONEST)]),
        ("distance", "camera:", bad + [("1e6", A)]),
        ("azimuth", "camera:", [(".nan", R), (".inf", R), ("361", R), ("1e308", R), ("-360", A)]),
        ("elevation", "camera:", [(".nan", R), ("91", R), ("-91", R), ("1e308", R), ("90", A)]),
        ("stiffness", "materials:", [("-1", R), ("0", R), (".nan", R), (".inf", R),
                                     ("1e400", R), ("1e308", HONEST), ("1e-320", HONEST),
                                     ("1e30", HONEST)]),
        ("dissipation_time", "materials:", [("-1", R), (".nan", R), (".inf", R),
                                            ("0", HONEST), ("1e308", HONEST), ("1e-320", HONEST)]),
        ("friction", "materials:", [("-1", R), (".nan", R), (".inf", R), ("11", R),
                                    ("1e308", R), ("0", HONEST), ("10", HONEST)]),
        ("mass", "name: box", [("-1", R), ("0", R), (".nan", R), (".inf", R), ("-.inf", R),
                               ("1e400", R), ("1e-400", R), ("1e308", HONEST),
                               ("1e-320", ANY), ("1e-300", ANY)]),
        ("density", "name: ball", [("-1", R), ("0", R), (".nan", R), (".inf", R),
                                   ("1e308", ANY), ("1e-320", ANY)]),
        ("radius", "name: ball", [("-1", R), ("0", R), (".nan", R), (".inf", R), ("1e308", R),
                                  ("1e5", R), ("1e-320", ANY), ("1e4", HONEST)]),
    ]
    for key, start, values in table:
        st = line_of(BASE, start) if start else 1
        for val, exp in values:
            exp = extreme(val, exp)
            text, ln = set_value(BASE, key, val, st)
            tag = (start or "").replace("name: ", "").replace(":", "")
            cid = "range_%s%s_%s" % (tag + "_" if tag else "", key,
                                     val.replace(".", "p").replace("-", "m").replace("+", ""))
            c.scene(cid, text, exp, "%s = %s" % (key, val), line=ln if exp == R else None)
    # Parameter-table keys the base does not set (engine/sim/param_tables.cc): inserted under their
    # section, each refused at its line with the table's range, or accepted at its bound.
    solver_ln = line_of(BASE, "solver:")
    inserted = [
        ("solver", "ls_alpha_max", [("0.5", R), ("101", R), (".nan", R), ("1", HONEST),
                                    ("100", HONEST)]),
        ("solver", "ls_max_iterations", [("0", R), ("1001", R), ("2.5", R), ("1", HONEST)]),
        ("solver", "ls_rho", [("0", R), ("1", R), ("0.5", A)]),
        ("solver", "memory_budget_mb", [("-1", R), ("1e10", R), (".inf", R)]),
        ("solver", "line_search", [("newton", R), ("[exact]", R), ("backtracking", HONEST)]),
        ("solver", "islands", [("maybe", R), ("false", A)]),
        ("top", "speculative_margin", [("2", R), ("false", HONEST)]),
        ("contact", "model", [("stiff", R), ("1", R), ("{a: 1}", R), ("lagged", HONEST),
                              ("similar", HONEST), ("lagged_regularized", HONEST)]),
        ("contact", "stiction_tolerance", [("0", R), ("-1e-4", R), ("2", R), (".nan", R),
                                           (".inf", R), ("1", HONEST), ("1e-300", ANY)]),
        ("material", "hunt_crossley_dissipation", [("-1", R), (".nan", R), (".inf", R),
                                                   ("0", HONEST), ("1e308", ANY)]),
    ]
    for where, key, values in inserted:
        for val, exp in values:
            exp = extreme(val, exp)
            if where == "solver":
                lines = BASE.splitlines()
                lines.insert(solver_ln, "  %s: %s" % (key, val))
                text, ln = "\n".join(lines) + "\n", solver_ln + 1
            elif where == "top":
                text, ln = "%s: %s\n" % (key, val) + BASE, 1
            elif where == "contact":
                text, ln = "contact:\n  %s: %s\n" % (key, val) + BASE, 2
            else:
                mat_ln = line_of(BASE, "friction: 0.5")
                lines = BASE.splitlines()
                lines.insert(mat_ln, "    %s: %s" % (key, val))
                text, ln = "\n".join(lines) + "\n", mat_ln + 1
            cid = "range_%s_%s_%s" % (where, key, val.replace(".", "p").replace("-", "m").replace("[", "list_")
                                      .replace("+", "").replace("[", "").replace("]", "")
                                      .replace("{", "").replace("}", "").replace(":", "")
                                      .replace(" ", ""))
            c.scene(cid, text, exp, "%s %s = %s (parameter table)" % (where, key, val),
                    line=ln if exp == R else None)
    for key, val in [("contact.model", "lagged"), ("contact.stiction_tolerance", "1e-3")]:
        c.scene("set_ok_%s" % key.replace(".", "_"), BASE, HONEST, "--set %s=%s" % (key, val),
                sets=["%s=%s" % (key, val)])
    for key, val in [("contact.model", "stiff"), ("contact.stiction_tolerance", "0"),
                     ("solver.ls_alpha_max", "0.5"), ("contact.modle", "lagged"),
                     ("materials.wood.hunt_crossley_dissipation", "-1")]:
        c.scene("set_range_%s" % key.replace(".", "_"), BASE, R, "--set %s=%s" % (key, val),
                sets=["%s=%s" % (key, val)])
    vec = [
        ("gravity", None, [("[0, 0, .nan]", R), ("[0, 0, .inf]", R), ("[0, 0, 1e400]", R),
                           ("[0, 0, 1e308]", HONEST), ("[0, 0, -1e300]", HONEST),
                           ("[1e308, 1e308, 1e308]", ANY)]),
        ("target", "camera:", [("[.nan, 0, 0]", R), ("[0, .inf, 0]", R)]),
        ("position", "name: box", [("[0, 0, .nan]", R), ("[.inf, 0, 0]", R), ("[0, 0, 1e400]", R),
                                   ("[0, 0, 1e300]", ANY), ("[1e300, 1e300, 1e300]", ANY),
                                   ("[0, 0, -1e300]", ANY)]),
        ("velocity", "name: box", [("[.nan, 0, 0]", R), ("[0, -.inf, 0]", R),
                                   ("[1e300, 0, 0]", ANY), ("[0, 0, -1e300]", ANY),
                                   ("[1e308, 1e308, 1e308]", ANY)]),
        ("angular_velocity", "name: box", [("[.nan, 0, 0]", R), ("[0, 0, .inf]", R),
                                           ("[0, 0, 1e300]", ANY), ("[1e308, 1e308, 0]", ANY)]),
        ("rotation", "name: box", [("{rpy_deg: [.nan, 0, 0]}", R), ("{rpy_deg: [0, .inf, 0]}", R),
                                   ("{rpy_deg: [1e308, 0, 0]}", "refused|accepted"),
                                   ("{quat: [.nan, 0, 0, 0]}", R), ("{quat: [1e308, 1e308, 0, 0]}", ANY),
                                   ("{quat: [1e-320, 0, 0, 0]}", "refused|accepted"),
                                   ("{axis_angle: [1e-320, 0, 0, 10]}", "refused|accepted"),
                                   ("{axis_angle: [1e308, 1e308, 0, 10]}", "refused|accepted")]),
        ("size", "name: box", [("[-0.1, 0.1, 0.1]", R), ("[0, 0.1, 0.1]", R), ("[.nan, 0.1, 0.1]", R),
                               ("[1e308, 0.1, 0.1]", R), ("[1e-320, 1e-320, 1e-320]", ANY),
                               ("[1e4, 1e-4, 1e4]", ANY)]),
    ]
    for key, start, values in vec:
        st = line_of(BASE, start) if start else 1
        for i, (val, exp) in enumerate(values):
            exp = extreme(val, exp)
            text, ln = set_value(BASE, key, val, st)
            tag = (start or "").replace("name: ", "").replace(":", "")
            c.scene("range_%s%s_%d" % (tag + "_" if tag else "", key, i), text, exp,
                    "%s = %s" % (key, val), line=ln if exp == R else None)
    # Joints.
    chain_cases = [
        ("axis", "name: link1", "[0, 0, 0]", R), ("axis", "name: link1", "[.nan, 1, 0]", R),
        ("axis", "name: link1", "[1e308, 1e308, 0]", "refused|accepted"),
        ("axis", "name: link1", "[1e-320, 0, 0]", "refused|accepted"),
        ("damping", "name: link1", "-1", R), ("damping", "name: link1", ".nan", R),
        ("damping", "name: link1", "1e308", ANY),
        ("limits", "name: link1", "[1, -1]", R), ("limits", "name: link1", "[.nan, 1]", R),
        ("limits", "name: link1", "[0, 0]", R), ("limits", "name: link1", "[-.inf, .inf]", A),
        ("limits", "name: link1", "[1]", R),
        ("stiffness", "spring:", "-1", R), ("stiffness", "spring:", ".nan", R),
        ("stiffness", "spring:", "1e308", ANY),
        ("reference", "spring:", ".nan", R), ("reference", "spring:", "1e308", ANY),
        ("kp", "actuator:", "-1", R), ("kp", "actuator:", ".inf", R), ("kp", "actuator:", "1e308", ANY),
        ("kd", "actuator:", ".nan", R),
        ("effort_limit", "actuator:", "0", R), ("effort_limit", "actuator:", "-1", R),
        ("effort_limit", "actuator:", ".nan", R), ("effort_limit", "actuator:", ".inf", A),
        ("frequency", "sine:", "-1", R), ("frequency", "sine:", ".nan", R),
        ("frequency", "sine:", "1e308", ANY),
        ("amplitude", "sine:", ".inf", R), ("amplitude", "sine:", "1e308", ANY),
        ("joint_position", "name: link1", ".nan", R), ("joint_position", "name: link1", "5", R),
        ("joint_position", "name: link1", "1e308", R),
        ("joint_velocity", "name: link1", ".inf", R), ("joint_velocity", "name: link1", "1e300", ANY),
        ("type", "name: link1", "ball", R), ("type", "name: link1", "free", R),
        ("force", "name: push", "[.nan, 0, 0]", R), ("force", "name: push", "[1e308, 0, 0]", ANY),
        ("force", "name: push", "[1, 0]", R), ("body", "name: push", "floor", R),
        ("body", "name: push", "nobody", R), ("frame", "name: push", "moon", R),
        ("point", "name: push", "[.inf, 0, 0]", R),
    ]
    c.scene("chain_base", CHAIN, A, "valid jointed base (control)")
    for i, (key, start, val, exp) in enumerate(chain_cases):
        st = line_of(CHAIN, start)
        text, ln = set_value(CHAIN, key, val, st)
        # A changed joint type is reported at the first key the new type does not take.
        c.scene("joint_%02d_%s" % (i, key), text, exp, "%s after '%s' = %s" % (key, start, val),
                line=ln if exp == R and key != "type" else None)
    # Signals.
    sig = [
        ("{piecewise_linear: [[0, 0], [0, 1]]}", R), ("{piecewise_linear: []}", R),
        ("{piecewise_linear: [[1, 0], [0, 1]]}", R), ("{piecewise_linear: [[.nan, 0]]}", R),
        ("{square: {low: 0, high: 1, period: 0}}", R), ("{square: {low: 0, high: 1, period: 1, duty: 2}}", R),
        ("{square: {low: 0, high: 1, period: 1e-320}}", "refused|accepted"),
        ("{sine: {amplitude: 1}}", R), ("{constant: .nan}", R), ("{constant: 1, sine: {}}", R),
        ("{piecewise_linear: [[0, 0], [1e308, 1e308]]}", ANY),
    ]
    for i, (val, exp) in enumerate(sig):
        text, ln = set_value(CHAIN, "force", "[%s, 0, 0]" % val, line_of(CHAIN, "name: push"))
        c.scene("signal_%02d" % i, text, exp, "load force signal %s" % val,
                line=ln if exp == R else None)
    # Generators.
    c.scene("gen_base", GENERATOR, A, "valid generator base (control)")
    gl = line_of(GENERATOR, "count:")
    for i, (val, exp) in enumerate([
            ("[0, 1, 1]", R), ("[-1, 1, 1]", R), ("[1.5, 1, 1]", R), ("[1, 1]", R),
            ("[100000, 100000, 100000]", R), ("[2147483647, 2147483647, 2]", R),
            ("[99999999999999999999, 1, 1]", R), ("[1e10, 1, 1]", R), ("[.nan, 1, 1]", R),
            ("[100001, 1, 1]", R), ("[2147483648, 1, 1]", R)]):
        c.scene("gen_count_%02d" % i, replace_line(GENERATOR, gl, "      count: " + val), exp,
                "generator count %s" % val, line=gl)
    for i, (key, val, exp) in enumerate([
            ("spacing", "[.nan, 0, 0]", R), ("spacing", "[-1, 0, 0]", R),
            ("spacing", "[1e308, 0, 0]", R), ("origin", "[.inf, 0, 0]", R),
            ("origin", "[1e300, 0, 0]", ANY),
            ("jitter", "{position: -1}", R), ("jitter", "{rotation: 181}", R),
            ("jitter", "{seed: -1}", R), ("jitter", "{seed: 99999999999999999999}", R),
            ("jitter", "{position: .nan}", R), ("templates", "[]", R),
            ("templates", "[nothing]", R), ("templates", "ball", R), ("name", "''", R),
            ("name", "a.b", R)]):
        text, ln = set_value(GENERATOR, key, val, line_of(GENERATOR, "grid:"))
        c.scene("gen_%02d_%s" % (i, key), text, exp, "generator %s = %s" % (key, val),
                line=ln if exp == R else None)


def gen_references(c):
    b = BASE
    lmat = line_of(b, "material: wood", line_of(b, "name: box"))
    c.scene("ref_unknown_material", replace_line(b, lmat, "        material: oak"), R,
            "a geom with an unknown material", line=lmat)
    c.scene("ref_unknown_template", b.replace("  - name: ball\n", "  - name: ball\n    template: nope\n"),
            R, "an unknown template", line=line_of(b, "  - name: ball") + 1)
    c.scene("ref_duplicate_body", b.replace("name: ball", "name: box"), R,
            "two bodies named box", line=line_of(b, "name: ball"))
    c.scene("ref_duplicate_material",
            b.replace("bodies:\n", "  - name: wood\n    friction: 0.1\nbodies:\n"), R,
            "two materials named wood", line=line_of(b, "bodies:"))
    c.scene("ref_body_named_world", b.replace("name: ball", "name: world"), R,
            "a body named world", line=line_of(b, "name: ball"))
    c.scene("ref_body_empty_name", b.replace("name: ball", 'name: ""'), R, "an empty body name",
            line=line_of(b, "name: ball"))
    c.scene("ref_body_dotted_name", b.replace("name: ball", "name: a.b"), R, "a dotted body name",
            line=line_of(b, "name: ball"))
    c.scene("ref_body_missing_name", b.replace("  - name: ball\n    density", "  - density"), R,
            "a body without a name")
    c.scene("ref_default_material_redefined",
            b.replace("name: wood", "name: default").replace("material: wood", "material: default"), A,
            "material `default` redefined (allowed), geoms naming it")
    ch = CHAIN
    l2 = line_of(ch, "parent: link1")
    c.scene("ref_unknown_parent", ch.replace("parent: link1", "parent: link9"), R,
            "an unknown joint parent", line=l2)
    c.scene("ref_self_parent", ch.replace("parent: link1", "parent: link2"), R,
            "a body that is its own parent", line=l2)
    c.scene("ref_cycle_2",
            ch.replace("      type: revolute\n      axis: [0, 1, 0]\n",
                       "      type: revolute\n      parent: link2\n      axis: [0, 1, 0]\n"), R,
            "link1 -> link2 -> link1")
    c.scene("ref_parent_static_world", ch.replace("parent: link1", "parent: floor"), A,
            "a static parent (part of the world)")
    c.scene("ref_parent_world_explicit", ch.replace("parent: link1", "parent: world"), A,
            "parent: world")
    c.scene("ref_duplicate_joint_name",
            ch.replace("joint: {type: revolute, parent: link1,",
                       "joint: {name: link1, type: revolute, parent: link1,"), R,
            "two joints named link1", line=l2)
    c.scene("ref_free_joint_with_parent", ch.replace("type: revolute, parent: link1", "type: free, parent: link1"),
            R, "a free joint with a parent", line=l2)
    c.scene("ref_load_on_unknown", ch.replace("body: slider", "body: ghost"), R,
            "a load on an unknown body", line=line_of(ch, "body: slider"))
    c.scene("ref_load_on_static", ch.replace("body: slider", "body: floor"), R,
            "a load on a static body", line=line_of(ch, "body: slider"))
    leq = len(ch.splitlines()) + 2  # the line of the equality appended below
    c.scene("ref_equality_unknown_body",
            ch + "equalities:\n  - {type: connect, body_a: link2, body_b: ghost}\n", R,
            "a connect to an unknown body", line=leq)
    c.scene("ref_equality_same_joint",
            ch + "equalities:\n  - {type: joint_coupling, joint_a: link1, joint_b: link1}\n", R,
            "a joint coupling of a joint with itself", line=leq)
    c.scene("ref_equality_coupling",
            ch + "equalities:\n  - {type: joint_coupling, joint_a: link2, joint_b: slider, gear: 0.5}\n",
            A, "a coupling between a hinge and a slider in two trees (control)")
    c.scene("ref_pair_unknown",
            b.replace("bodies:\n", "pairs:\n  - {materials: [wood, oak], friction: 0.1}\nbodies:\n"),
            R, "a pair with an unknown material", line=line_of(b, "bodies:") + 1)
    c.scene("ref_pair_duplicate",
            b.replace("bodies:\n", "pairs:\n  - {materials: [wood, wood]}\n  - {materials: [wood, wood]}\nbodies:\n"),
            R, "the same pair twice", line=line_of(b, "bodies:") + 2)
    c.scene("ref_pair_one_material",
            b.replace("bodies:\n", "pairs:\n  - {materials: [wood]}\nbodies:\n"), R,
            "a pair with one material", line=line_of(b, "bodies:") + 1)
    g = GENERATOR
    c.scene("ref_generator_name_clash",
            g.replace("  - name: ground\n", "  - name: pile_0\n    static: true\n    geoms: [{shape: sphere, radius: 1}]\n  - name: ground\n"),
            R, "a body named like a generated body")
    c.scene("ref_two_generators_same_name", g + g[g.index("  - grid:"):], R,
            "two generators with one name")
    c.scene("ref_template_duplicate",
            g.replace("templates:\n", "templates:\n  - {name: ball, mass: 1}\n"), R,
            "two templates named ball")
    c.scene("ref_template_with_template",
            g.replace("  - name: ball\n", "  - name: ball\n    template: ball\n"), R,
            "a template that names a template")
    c.scene("ref_template_bad_key", g.replace("    density: 800\n", "    densty: 800\n"), R,
            "a template with a misspelled key", line=line_of(g, "density: 800"))
    # Cycle through a template-generated parent chain written tip first.
    n = 40000
    lines = ["time_step: 0.01", "bodies:"]
    for i in range(n):
        lines.append("  - {name: l%d, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, "
                     "parent: l%d, axis: [0, 1, 0]}}" % (i, (i + 1) % n))
    c.scene("ref_cycle_40000", "\n".join(lines) + "\n", R, "a 40 000-link joint cycle")
    c.scene("ref_self_parent_single",
            "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, parent: a}}\n",
            R, "a single body that is its own parent", line=2)


def gen_sizes(c):
    n = 25000
    lines = ["time_step: 0.01", "bodies:"]
    for i in range(n - 1, -1, -1):
        parent = "world" if i == 0 else "c%d" % (i - 1)
        lines.append("  - {name: c%d, mass: 0.1, inertia: [0.001, 0.001, 0.001], position: [%g, 0, 1], "
                     "joint: {type: revolute, parent: %s, axis: [0, 1, 0]}}" % (i, 0.01 * i, parent))
    c.scene("size_chain_25000_tip_first", "\n".join(lines) + "\n", ANY,
            "a 25 000-link revolute chain listed tip first (refused by the dense-tree memory "
            "estimate under the runner's address-space limit)", steps=2)
    c.scene("size_generator_100000",
            GENERATOR.replace("count: [2, 2, 2]", "count: [100, 100, 10]")
                     .replace("spacing: [0.1, 0.1, 0.1]", "spacing: [0.5, 0.5, 0.5]"),
            HONEST, "100 000 spheres from one generator (apart)", steps=1)
    c.scene("size_generator_100000_touching",
            GENERATOR.replace("count: [2, 2, 2]", "count: [100, 100, 10]")
                     .replace("spacing: [0.1, 0.1, 0.1]", "spacing: [0.06, 0.06, 0.06]"),
            F, "100 000 touching spheres: the first step fails with work_budget_exceeded (its "
            "Newton system needs ~4.6e10 multiply-adds per factorization with the AMD order, over the work budget of "
            "1.25e10 that the runner's CPU-time limit of 25 s gives), the message naming the "
            "problem's size, the state kept", steps=1)
    gens = "".join(GENERATOR[GENERATOR.index("  - grid:"):]
                   .replace("name: pile", "name: pile%d" % k)
                   .replace("count: [2, 2, 2]", "count: [100, 100, 10]")
                   .replace("origin: [0, 0, 0.1]", "origin: [0, 0, %d]" % (100 * k + 1))
                   for k in range(20))
    c.scene("size_generators_2M", GENERATOR[:GENERATOR.index("  - grid:")] + gens,
            R, "20 generators of 100 000 bodies (2 000 000; at most 500 000 in a scene)",
            steps=1)
    many = ["time_step: 0.01", "bodies:"] + [
        "  - {name: s%d, mass: 1, position: [%d, 0, 0], geoms: [{shape: sphere, radius: 0.1}]}" % (i, i)
        for i in range(100000)]
    c.scene("size_bodies_list_100000", "\n".join(many) + "\n", HONEST,
            "100 000 bodies written out", steps=1)
    geoms = "  - name: g\n    mass: 1\n    geoms:\n" + "".join(
        "      - {shape: sphere, radius: 0.01, position: [%g, 0, 0]}\n" % (0.001 * i)
        for i in range(100000))
    c.scene("size_geoms_100000_one_body", "time_step: 0.01\nbodies:\n" + geoms,
            "refused|accepted|failed_reported", "one body with 100 000 geoms", steps=1)
    mats = "materials:\n  - {name: wood}\n" + "".join("  - {name: m%d}\n" % i for i in range(30000))
    c.scene("size_materials_30000", mats + BASE[BASE.index("bodies:"):], A,
            "30 000 materials", steps=2)
    pairs = "materials:\n" + "".join("  - {name: m%d}\n" % i for i in range(400)) + "pairs:\n" + "".join(
        "  - {materials: [m%d, m%d]}\n" % (i, j) for i in range(400) for j in range(i, 400) if (i * 7 + j) % 4 == 0)
    c.scene("size_pairs_many", pairs + BASE[BASE.index("bodies:"):].replace("material: wood", "material: m1"),
            A, "20 000 material pairs", steps=2)


def gen_meshes(c, src):
    m = c.dir / "meshes"
    m.mkdir(parents=True, exist_ok=True)

    def case(cid, filename, data, expect, note, extra=""):
        if data is not None:
            (m / filename).write_bytes(data if isinstance(data, bytes) else data.encode())
        text = mesh_scene("meshes/" + filename, extra)
        c.scene(cid, text, expect, note, line=(line_of(text, "file:") if expect == R and not extra else None))

    case("mesh_obj_cube_control", "cube.obj", obj(CUBE_V, CUBE_F), A, "valid OBJ cube (control)")
    case("mesh_missing", "does_not_exist.obj", None, R, "missing mesh file")
    case("mesh_empty_obj", "empty.obj", b"", R, "empty OBJ")
    case("mesh_empty_stl", "empty.stl", b"", R, "empty STL")
    case("mesh_empty_ply", "empty.ply", b"", R, "empty PLY")
    case("mesh_empty_gltf", "empty.gltf", b"", R, "empty glTF")
    garbage = bytes((i * 131 + 7) % 256 for i in range(4096))
    for ext in ("obj", "stl", "ply", "gltf", "glb", "dae", "fbx", "3ds", "off"):
        case("mesh_garbage_" + ext, "garbage." + ext, garbage, R, "garbage bytes as ." + ext)
    case("mesh_unknown_ext", "cube.xyz123", obj(CUBE_V, CUBE_F), "refused|accepted",
         "OBJ text under an unknown extension")
    case("mesh_no_ext", "cube_noext", obj(CUBE_V, CUBE_F), "refused|accepted", "no extension")
    for tag, val in (("nan", "nan"), ("inf", "inf"), ("ninf", "-inf")):
        v = [list(p) for p in CUBE_V]
        s = obj(v, CUBE_F).replace("v 0.5 0.5 0.5", "v 0.5 0.5 %s" % val)
        case("mesh_obj_" + tag, "cube_%s.obj" % tag, s, R, "OBJ with a %s coordinate" % val)
    case("mesh_obj_1e308", "cube_1e308.obj",
         obj([tuple(1e308 * x for x in p) for p in CUBE_V], CUBE_F), R, "OBJ of size 1e308")
    case("mesh_obj_1e300", "cube_1e300.obj",
         obj([tuple(1e300 * x for x in p) for p in CUBE_V], CUBE_F), R, "OBJ of size 1e300")
    case("mesh_obj_1e200", "cube_1e200.obj",
         obj([tuple(1e200 * x for x in p) for p in CUBE_V], CUBE_F), R, "OBJ of size 1e200")
    case("mesh_obj_1e_300", "cube_tiny.obj",
         obj([tuple(1e-300 * x for x in p) for p in CUBE_V], CUBE_F), R, "OBJ of size 1e-300")
    case("mesh_obj_index_oob", "oob.obj", obj(CUBE_V, CUBE_F + [(1, 2, 99999)]), R,
         "OBJ face index beyond the vertices")
    case("mesh_obj_index_zero", "zero.obj", obj(CUBE_V, CUBE_F + [(0, 1, 2)]), R, "OBJ face index 0")
    case("mesh_obj_index_negative", "neg.obj", obj(CUBE_V, CUBE_F + [(-1, -2, -99999)]), R,
         "OBJ relative index before the first vertex")
    case("mesh_obj_index_huge", "hugeidx.obj", obj(CUBE_V, CUBE_F + [(1, 2, 99999999999999999999)]),
         R, "OBJ face index beyond 64 bits")
    case("mesh_obj_flat", "flat.obj", obj([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], [(1, 2, 4, 3)]),
         R, "flat OBJ (no volume)")
    case("mesh_obj_points_only", "points.obj", obj(CUBE_V, []), R, "OBJ without faces")
    case("mesh_obj_one_triangle", "tri.obj", obj(CUBE_V[:3], [(1, 2, 3)]), R, "one triangle")
    case("mesh_obj_huge_line", "hugeline.obj", obj(CUBE_V, CUBE_F) + "# " + "z" * 5_000_000 + "\n",
         A, "OBJ with a 5 MB comment line")
    case("mesh_obj_mtllib_missing", "mtl.obj", "mtllib nowhere.mtl\nusemtl x\n" + obj(CUBE_V, CUBE_F),
         "refused|accepted", "OBJ naming a missing material library")
    case("mesh_obj_mtllib_devzero", "mtlzero.obj", "mtllib /dev/zero\n" + obj(CUBE_V, CUBE_F),
         "refused|accepted", "OBJ whose material library is /dev/zero")
    # Sphere points, all on the hull.
    import random
    rnd = random.Random(5)
    pts = []
    for _ in range(60000):
        while True:
            p = [rnd.uniform(-1, 1) for _ in range(3)]
            r = math.sqrt(sum(x * x for x in p))
            if 0.1 < r <= 1:
                pts.append(tuple(x / r * 0.1 for x in p))
                break
    fan = [(1, i, i + 1) for i in range(2, len(pts))]
    case("mesh_obj_60000_hull", "sphere60k.obj", obj(pts, fan), "refused|accepted|failed_reported",
         "60 000 vertices all on the convex hull")
    # PLY.
    octa = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    ofaces = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    good_ply = ply_binary(6, octa, ofaces)
    case("mesh_ply_control", "octa.ply", good_ply, A, "valid binary PLY (control)")
    case("mesh_ply_truncated_half", "trunc.ply", good_ply[: len(good_ply) // 2], R, "truncated binary PLY")
    case("mesh_ply_truncated_header", "trunch.ply", good_ply[:40], R, "PLY cut in the header")
    case("mesh_ply_lying_vertex_count", "lie.ply", ply_binary(4000000000, octa, ofaces), R,
         "PLY header claims 4e9 vertices")
    case("mesh_ply_lying_1e6", "lie6.ply", ply_binary(1000000, octa, ofaces), R,
         "PLY header claims 1e6 vertices, has 6")
    case("mesh_ply_lying_face_count", "lief.ply", ply_binary(6, octa, ofaces, face_count=2000000000), R,
         "PLY header claims 2e9 faces")
    case("mesh_ply_index_oob", "oob.ply", ply_binary(6, octa, ofaces + [(0, 1, 1000000)]), R,
         "PLY face index beyond the vertices")
    case("mesh_ply_index_negative", "neg.ply", ply_binary(6, octa, ofaces + [(0, 1, -7)]), R,
         "PLY negative face index")
    case("mesh_ply_nan", "nan.ply", ply_binary(6, [(float("nan"), 0, 0)] + octa[1:], ofaces), R,
         "PLY with a NaN vertex")
    case("mesh_ply_inf", "inf.ply", ply_binary(6, [(float("inf"), 0, 0)] + octa[1:], ofaces), R,
         "PLY with an inf vertex")
    case("mesh_ply_ascii_lying", "asciilie.ply",
         "ply\nformat ascii 1.0\nelement vertex 100000000\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n0 0 0\n1 0 0\n", R, "ASCII PLY header claims 1e8 vertices")
    case("mesh_ply_bad_list_type", "listt.ply",
         "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
         "property float z\nelement face 1\nproperty list float float vertex_indices\nend_header\n"
         "0 0 0\n1 0 0\n0 1 0\n1e30 0 1 2\n", R, "PLY list with a 1e30 length")
    # STL.
    good_stl = stl_binary(TETRA)
    case("mesh_stl_control", "tetra.stl", good_stl, A, "valid binary STL (control)")
    case("mesh_stl_lying_count", "lie.stl", stl_binary(TETRA, count=0xFFFFFFFF), R,
         "binary STL claims 4e9 triangles")
    case("mesh_stl_truncated", "trunc.stl", good_stl[:120], R, "truncated binary STL")
    case("mesh_stl_nan", "nan.stl", stl_binary([((float("nan"), 0, 0), (1, 0, 0), (0, 1, 0))] + TETRA[1:]),
         R, "STL with a NaN vertex")
    case("mesh_stl_ascii_huge", "asciihuge.stl",
         "solid x\n" + "".join("facet normal 0 0 0\nouter loop\nvertex %s\nvertex 1 0 0\nvertex 0 1 0\n"
                               "endloop\nendfacet\n" % v for v in ("1e400 0 0", "0 0 1", "0 1 1"))
         + "endsolid x\n", R, "ASCII STL with a 1e400 coordinate")
    case("mesh_stl_ascii_unterminated", "asciiopen.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0",
         R, "unterminated ASCII STL")
    # glTF.
    case("mesh_gltf_one_triangle", "tri.gltf", gltf([{"mesh": 0}]), R, "glTF with one flat triangle")
    deep = [{"children": [i + 1]} for i in range(99999)] + [{"mesh": 0}]
    case("mesh_gltf_deep_100000", "deep.gltf", gltf(deep), R, "glTF node chain 100 000 deep")
    cyc = [{"children": [1]}, {"children": [0], "mesh": 0}]
    case("mesh_gltf_node_cycle", "cycle.gltf", gltf(cyc), R, "glTF node cycle")
    case("mesh_gltf_self_child", "self.gltf", gltf([{"children": [0], "mesh": 0}]), R,
         "glTF node that is its own child")
    case("mesh_gltf_child_oob", "childoob.gltf", gltf([{"children": [99999], "mesh": 0}]), R,
         "glTF child index out of range")
    case("mesh_gltf_mesh_oob", "meshoob.gltf", gltf([{"mesh": 7}]), R, "glTF mesh index out of range")
    case("mesh_gltf_accessor_count_lies", "acc.gltf", gltf([{"mesh": 0}], accessor_count=1000000000), R,
         "glTF accessor count 1e9 over a 36-byte buffer")
    case("mesh_gltf_buffer_devzero", "devzero.gltf", gltf([{"mesh": 0}], buffer_uri="/dev/zero",
                                                           byte_length=36), R,
         "glTF buffer read from /dev/zero")
    case("mesh_gltf_buffer_missing", "nobuf.gltf", gltf([{"mesh": 0}], buffer_uri="nowhere.bin"), R,
         "glTF buffer file missing")
    case("mesh_gltf_buffer_huge_length", "hugebuf.gltf",
         gltf([{"mesh": 0}], byte_length=2 ** 62), R, "glTF buffer byteLength 2^62")
    case("mesh_gltf_json_deep", "jsondeep.gltf", "[" * 100000 + "]" * 100000, R,
         "glTF that is 100 000 nested JSON arrays")
    case("mesh_gltf_not_json", "notjson.gltf", "{asset: ", R, "glTF that is not JSON")
    # Mesh paths that are not regular files.
    c.scene("mesh_path_directory", mesh_scene(str(c.dir / "meshes")), R,
            "mesh file is a directory")
    c.scene("mesh_path_devzero", mesh_scene("/dev/zero"), R, "mesh file is /dev/zero")
    c.scene("mesh_path_devzero_obj", mesh_scene("/dev/zero").replace("/dev/zero", "/dev/zero"), R,
            "mesh file /dev/zero (second read)")
    fifo = m / "fifo.obj"
    if not fifo.exists():
        os.mkfifo(fifo)
    c.scene("mesh_path_fifo", mesh_scene("meshes/fifo.obj"), R, "mesh file is a FIFO with no writer")
    c.scene("mesh_path_empty", mesh_scene(""), R, "empty mesh file name")
    c.scene("mesh_path_nul", mesh_scene("a\u0000b.obj").replace('"a\\u0000b.obj"', '"a\\0b.obj"'), R,
            "mesh file name with a NUL")
    # Scale.
    for tag, val, exp in (("0", "0", R), ("neg", "-1", R), ("nan", ".nan", R), ("inf", ".inf", R),
                          ("huge", "1e7", R), ("vec_bad", "[1, 1]", R), ("tiny", "1e-320", ANY),
                          ("max", "1e6", ANY)):
        text = mesh_scene("meshes/cube.obj", "        scale: %s\n" % val)
        c.scene("mesh_scale_" + tag, text, exp, "mesh scale %s" % val,
                line=line_of(text, "scale:") if exp == R else None)
    if src:
        for f in sorted((pathlib.Path(src) / "assets" / "meshes").iterdir()):
            text = mesh_scene(str(f))
            c.scene("mesh_asset_" + f.name.replace(".", "_"), text, A, "shipped mesh %s" % f.name)


def gen_cli(c, src):
    base = c.write("cli_base.yaml", BASE)
    b = "{case}/cli_base.yaml"
    stats = "{case}/cli.stats.jsonl"

    def run(cid, args, expect, note, mention, validate=None):
        c.add(cid, expect, note, validate=validate, run=["run"] + args, mention=mention)

    c.add("cli_base_control", A, "valid scene (control)", validate=["validate", b],
          run=["run", b, "--steps", "10", "--stats", stats])
    for tag, val, exp in (("1e308", "1e308", R), ("1e_300", "1e-300", "refused|accepted"),
                          ("nan", "nan", R), ("inf", "inf", R), ("neg", "-1", R), ("zero", "0", R),
                          ("text", "abc", R), ("1e7", "1e7", "refused|accepted")):
        if val == "1e7":
            continue  # a long but valid run; not a hostile input
        run("cli_duration_" + tag, [b, "--duration", val], exp, "--duration %s" % val, "--duration")
    for tag, val in (("huge", "1e12"), ("overflow", "99999999999999999999"), ("zero", "0"),
                     ("neg", "-1"), ("frac", "1.5"), ("nan", "nan"), ("text", "ten"),
                     ("int_overflow", "2147483648")):
        run("cli_steps_" + tag, [b, "--steps", val], R, "--steps %s" % val, "--steps")
    run("cli_steps_and_duration", [b, "--steps", "5", "--duration", "0.1"], R,
        "--steps with --duration", "--steps")
    run("cli_unknown_option", [b, "--bogus"], R, "unknown option", "--bogus")
    run("cli_two_scenes", [b, b], R, "two scene arguments", "")
    c.add("cli_no_subcommand", R, "no subcommand", run=[], mention="")
    c.add("cli_unknown_subcommand", R, "unknown subcommand", run=["explode", b], mention="explode")
    c.add("cli_run_no_scene", R, "run without a scene", run=["run"], mention="scene")
    # The stats or trajectory file is the scene itself: the scene must survive.
    c.write("cli_stats_self.yaml", BASE)
    run("cli_stats_is_scene", ["{case}/cli_stats_self.yaml", "--steps", "2", "--stats",
                               "{case}/cli_stats_self.yaml"], R,
        "--stats names the scene file", "--stats")
    c.cases[-1]["unchanged"] = "{case}/cli_stats_self.yaml"
    c.write("cli_traj_self.yaml", BASE)
    run("cli_trajectory_is_scene", ["{case}/cli_traj_self.yaml", "--steps", "2", "--trajectory",
                                    "{case}/cli_traj_self.yaml"], R,
        "--trajectory names the scene file", "--trajectory")
    c.cases[-1]["unchanged"] = "{case}/cli_traj_self.yaml"
    c.write("cli_stats_traj.yaml", BASE)
    run("cli_stats_is_trajectory", ["{case}/cli_stats_traj.yaml", "--steps", "2", "--stats",
                                    "{case}/same.out", "--trajectory", "{case}/same.out"], R,
        "--stats and --trajectory name the same file", "--trajectory")
    # Scene paths that are not regular files.
    fifo = c.dir / "scene_fifo.yaml"
    if not fifo.exists():
        os.mkfifo(fifo)
    for cid, path, note in (("cli_scene_fifo", str(fifo), "scene is a FIFO with no writer"),
                            ("cli_scene_dev_zero", "/dev/zero", "scene is /dev/zero"),
                            ("cli_scene_dev_urandom", "/dev/urandom", "scene is /dev/urandom"),
                            ("cli_scene_directory", str(c.dir), "scene is a directory"),
                            ("cli_scene_missing", str(c.dir / "missing.yaml"), "missing scene"),
                            ("cli_scene_empty_name", "", "empty scene name"),
                            ("cli_scene_dev_null", "/dev/null", "scene is /dev/null")):
        exp = "refused|accepted" if path == "/dev/null" else R
        c.add(cid, exp, note, validate=["validate", path], run=["run", path, "--steps", "2"],
              mention=path if path else "")
    odd = c.dir / "odd name \xe9 [x].yaml"
    odd.write_text(BASE)
    c.add("cli_scene_odd_name", A, "scene file name with a space, brackets and Latin-1 text",
          validate=["validate", str(odd)], run=["run", str(odd), "--steps", "2"])
    bad_name = os.fsencode(str(c.dir)) + b"/bad\xff\xfename.yaml"
    with open(bad_name, "wb") as f:
        f.write(BASE.encode())
    c.add("cli_scene_invalid_utf8_name", A, "scene file name that is not UTF-8",
          validate=["validate", os.fsdecode(bad_name)], run=["run", os.fsdecode(bad_name), "--steps", "2"])
    # --set.
    sets = [
        ("set_alias_bomb", "description=" + "[" + ",".join(["&a [x,x,x,x,x,x,x,x,x,x]"] + []) + "]",
         "refused|accepted"),
        ("set_alias_bomb_deep",
         "gravity=[&a0 [0,0,0,0,0,0,0,0,0,0], " +
         ", ".join("&a%d [%s]" % (i, ",".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 10)) + "]",
         R),
        ("set_alias_bomb_new_key",
         "x=[&a0 [0,0,0,0,0,0,0,0,0,0], " +
         ", ".join("&a%d [%s]" % (i, ",".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 10)) + "]",
         R),
        ("set_alias_bomb_materials",
         "materials=[&a0 [{name: m},{name: m}], " +
         ", ".join("&a%d [%s]" % (i, ",".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 10)) + "]",
         R),
        ("set_recursive_alias_new_key", "x=&a [1, *a]", R),
        ("set_recursive_alias_gravity", "gravity=&a [0, 0, *a]", R),
        ("set_recursive_alias_map", "camera=&m {target: *m}", R),
        ("set_empty_key", "=1", R), ("set_no_equals", "time_step", R), ("set_dot", ".=1", R),
        ("set_double_dot", "bodies..mass=1", R), ("set_trailing_dot", "solver.=1", R),
        ("set_index_huge", "bodies.99999999999999999999.mass=1", R),
        ("set_index_negative", "bodies.-1.mass=1", R), ("set_index_past_end", "bodies.3.mass=1", R),
        ("set_unknown_item", "bodies.nobody.mass=1", R), ("set_unknown_key", "solver.sigmaa=1", R),
        ("set_into_scalar", "time_step.x=1", R), ("set_into_list_of_numbers", "gravity.x=1", R),
        ("set_gravity_index", "gravity.2=-1", "refused|accepted"),
        ("set_bad_yaml", "gravity=[0, 0", R), ("set_empty_value", "time_step=", R),
        ("set_nan", "bodies.box.mass=.nan", R), ("set_range", "solver.sigma=2", R),
        ("set_two_documents", "time_step=0.01\n---\n0.02", R),
        ("set_tab", "time_step=\t0.01", "refused|accepted"),
        # 30 000 levels: an argument is at most 128 KiB (MAX_ARG_STRLEN).
        ("set_deep_path", ".".join(["a"] * 30000) + "=1", R),
        ("set_deep_value", "x=" + "[" * 30000 + "]" * 30000, R),
        ("set_deep_value_map", "x=" + "{a: " * 20000 + "1" + "}" * 20000, R),
        ("set_replace_bodies", "bodies=[]", "refused|accepted"),
        ("set_bodies_scalar", "bodies=3", R), ("set_generators_huge",
                                               "generators=[{grid: {name: g, templates: [t], count: [100000, 100000, 100000], spacing: [0, 0, 0]}}]", R),
        ("set_valid", "time_step=0.005", A), ("set_valid_nested", "materials.wood.friction=0.3", A),
        ("set_null_byte", "description=a\0b", R),
    ]
    for cid, s, exp in sets:
        if "\0" in s:
            continue  # a NUL cannot be passed in argv
        c.add("cli_" + cid, exp, "--set %s" % (s if len(s) < 60 else s[:57] + "..."),
              validate=["validate", b, "--set", s],
              run=["run", b, "--steps", "5", "--set", s],
              mention="--set" if exp == R else None)
    # export-step and reproduce on hostile arguments.
    c.add("cli_export_step_negative", R, "export-step --step -1",
          run=["export-step", b, "--step", "-1", "--out", "{case}/export_neg"], mention="--step")
    c.add("cli_export_step_huge", R, "export-step --step 99999999999",
          run=["export-step", b, "--step", "99999999999", "--out", "{case}/export_huge"],
          mention="--step")
    c.add("cli_export_step_out_is_file", R, "export-step --out names a file",
          run=["export-step", b, "--step", "1", "--out", b], mention="")
    c.cases[-1]["unchanged"] = b


def gen_diverging(c, src):
    if not src:
        return
    s = pathlib.Path(src) / "scenes"
    for name in ("box_stack.yaml", "box_on_ramp.yaml", "clutter_40.yaml", "pendulum_chain.yaml"):
        text = (s / name).read_text()
        for dt in ("1", "0.1"):
            t2 = "\n".join(("time_step: " + dt) if l.startswith("time_step:") else l
                           for l in text.splitlines()) + "\n"
            c.scene("diverge_%s_dt%s" % (name[:-5], dt.replace(".", "p")), t2, HONEST,
                    "%s with time_step %s" % (name, dt), steps=20)
    # Certain solver failures: one SAP iteration at an unreachable tolerance on a stack.
    text = (s / "box_stack.yaml").read_text() + \
        "solver: {max_iterations: 1, rel_tolerance: 1.0e-15, abs_tolerance: 0}\n"
    c.scene("fail_sap_one_iteration", text, F, "box_stack with one SAP iteration", steps=20)
    text = CHAIN + "free_motion: {max_iterations: 1, tolerance: 1.0e-15}\nintegrator: implicit_euler\n"
    c.scene("fail_free_motion_one_iteration", text, "failed_reported|accepted",
            "implicit free motion with one Newton iteration", steps=20)
    # The shipped scenes are the accepted controls (a few steps each).
    for sub in ("", "paper", "bench"):
        for f in sorted((s / sub).glob("*.yaml")):
            steps = 2 if "1000" in f.name or "640" in f.name else 5
            c.add("scene_%s%s" % (sub + "_" if sub else "", f.stem), A, "shipped scene (control)",
                  validate=["validate", str(f)],
                  run=["run", str(f), "--steps", str(steps), "--stats",
                       "{case}/scene_%s%s.stats.jsonl" % (sub, f.stem)])


def gen_found(c, here):
    """Inputs found by the fuzzers (tests/hostile/found/): any honest outcome."""
    found = pathlib.Path(here) / "found"
    if not found.is_dir():
        return
    for f in sorted(found.iterdir()):
        if f.name.startswith("README"):
            continue
        if f.suffix == ".set":
            # A --set override (fuzz_set), applied to the valid base scene.
            base = "found_base.yaml"
            c.write(base, BASE)
            s = f.read_bytes().decode("utf-8", "replace")
            c.add("found_" + f.stem, ANY, "fuzzer --set input %s" % f.name,
                  validate=["validate", "{case}/" + base, "--set", s],
                  run=["run", "{case}/" + base, "--steps", "5", "--set", s])
        elif f.suffix in (".yaml", ".yml"):
            c.scene("found_" + f.stem, f.read_bytes(), ANY, "fuzzer input %s" % f.name)
        else:
            (c.dir / "meshes").mkdir(exist_ok=True)
            shutil.copy(f, c.dir / "meshes" / f.name)
            c.scene("found_" + f.name.replace(".", "_"), mesh_scene("meshes/" + f.name), ANY,
                    "fuzzer mesh input %s" % f.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--source-dir", default=str(pathlib.Path(__file__).resolve().parents[2]))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    if (out / "cases").exists():
        shutil.rmtree(out / "cases")
    c = Corpus(out)
    c.dir.mkdir(parents=True)
    gen_syntax(c)
    gen_types(c)
    gen_ranges(c)
    gen_references(c)
    gen_sizes(c)
    gen_meshes(c, a.source_dir)
    gen_cli(c, a.source_dir)
    gen_diverging(c, a.source_dir)
    gen_found(c, pathlib.Path(__file__).resolve().parent)
    c.finish()
    print("generated %d cases in %s" % (len(c.cases), c.dir))


if __name__ == "__main__":
    main()
