#!/usr/bin/env python3
"""Writes a chain of N revolute links (5 cm capsules, axes alternating y and z) lying on the floor,
about 2 floor contacts per link: `python3 bench/scale/gen_chain.py 2000 > chain_2000.yaml`.
Scale benchmark, see docs/benchmarks.md."""
import sys

n, L = int(sys.argv[1]), 0.05
print(f"""description: "chain {n}"
time_step: 0.002
integrator: symplectic_euler
materials:
  - {{name: metal, stiffness: 1e8, dissipation_time: 0.002, friction: 0.4}}
templates:
  - name: link
    mass: 0.05
    geoms: [{{shape: capsule, radius: 0.01, length: {L}, material: metal, rotation: {{axis_angle: [0, 1, 0, 90]}}}}]
bodies:
  - name: floor
    static: true
    geoms: [{{shape: half_space, material: metal}}]""")
for i in range(n):
    parent = "" if i == 0 else f"parent: l{i-1}, "
    axis = "[0, 1, 0]" if i % 2 == 0 else "[0, 0, 1]"
    print(f"  - {{name: l{i}, template: link, position: [{(i+0.5)*L:.4f}, 0, 0.0099], joint: "
          f"{{type: revolute, {parent}axis: {axis}, child_frame: {{position: [{-L/2}, 0, 0]}}, damping: 0.001}}}}")
