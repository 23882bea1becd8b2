#!/usr/bin/env python3
"""Writes scenes/paper/dual_arm_jar.yaml: the SAP paper's dual-arm jar task (Figs. 1, 18-21).

Two Panda-like 7-DOF arms with Allegro-like 16-DOF hands (the robot_dish_pile.yaml models) face
each other across a table. The left hand wraps the jar, the right hand pinches the lid's handle.
Joint setpoints are piecewise linear in time; each keyframe is a Cartesian palm pose turned into
joint angles by damped least-squares inverse kinematics of the arm's forward kinematics (the
same joint anchors and axes the scene declares), sampled every SAMPLE seconds between keyframes
so the palm follows straight lines.

Usage: python3 scenes/paper/tools/make_dual_arm_jar.py [OUT]   (default scenes/paper/dual_arm_jar.yaml)
Standard library only.
"""
import math
import random
import os
import sys

# ----------------------------------------------------------------------------------------------
# Small 3D helpers (row-major 3x3 lists).


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def add(a, b):
    return [a[i] + b[i] for i in range(3)]


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def scale(a, s):
    return [x * s for x in a]


def rot(axis, angle):
    n = math.sqrt(sum(x * x for x in axis))
    x, y, z = (c / n for c in axis)
    c, s = math.cos(angle), math.sin(angle)
    C = 1 - c
    return [[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C]]


def log_rot(R):
    """Rotation vector of R."""
    tr = max(-1.0, min(3.0, R[0][0] + R[1][1] + R[2][2]))
    ang = math.acos(max(-1.0, min(1.0, (tr - 1) / 2)))
    v = [R[2][1] - R[1][2], R[0][2] - R[2][0], R[1][0] - R[0][1]]
    if ang < 1e-9:
        return scale(v, 0.5)
    s = math.sin(ang)
    if s < 1e-6:  # near pi
        d = [math.sqrt(max(0.0, (R[i][i] + 1) / 2)) for i in range(3)]
        i = d.index(max(d))
        axis = [R[i][j] / (2 * d[i]) if j != i else d[i] for j in range(3)]
        return scale(axis, ang)
    return scale(v, ang / (2 * s))


IDENT = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

# ----------------------------------------------------------------------------------------------
# Arm + hand in the arm's base frame at zero joint angles (x forward, z up), as in
# robot_dish_pile.yaml: Panda DH geometry, the published link masses.

ARM = [  # name, mass, anchor (body origin), axis, limits, kp, kd, effort, geoms
    ("link1", 4.97068, (0, 0, 0.333), (0, 0, 1), (-2.8973, 2.8973), 3000, 100, 87,
     ["{shape: capsule, radius: 0.06, length: 0.14, position: [0, 0, -0.0865], collide: false, material: robot, color: %s}" ]),
    ("link2", 0.64693, (0, 0, 0.333), (0, 1, 0), (-1.7628, 1.7628), 3000, 100, 87,
     ["{shape: capsule, radius: 0.06, length: 0.12, position: [0, 0, 0.12], collide: false, material: robot, color: %s}"]),
    ("link3", 3.2286, (0, 0, 0.649), (0, 0, 1), (-2.8973, 2.8973), 3000, 60, 87,
     ["{shape: capsule, radius: 0.06, length: 0.1, position: [0, 0, -0.06], collide: false, material: robot, color: %s}",
      "{shape: capsule, radius: 0.055, length: 0.0825, position: [0.04125, 0, 0], rotation: {axis_angle: [0, 1, 0, 90]}, collide: false, material: robot, color: %s}"]),
    ("link4", 3.5879, (0.0825, 0, 0.649), (0, -1, 0), (-3.0718, -0.0698), 3000, 60, 87,
     ["{shape: capsule, radius: 0.055, length: 0.0825, position: [-0.04125, 0, 0.05], rotation: {axis_angle: [0, 1, 0, 90]}, collide: false, material: robot, color: %s}",
      "{shape: capsule, radius: 0.055, length: 0.05, position: [0, 0, 0.025], collide: false, material: robot, color: %s}"]),
    ("link5", 1.22595, (0, 0, 1.033), (0, 0, 1), (-2.8973, 2.8973), 500, 10, 12,
     ["{shape: capsule, radius: 0.05, length: 0.25, position: [0, 0, -0.16], collide: false, material: robot, color: %s}"]),
    ("link6", 1.66656, (0, 0, 1.033), (0, -1, 0), (-0.0175, 3.7525), 500, 10, 12,
     ["{shape: capsule, radius: 0.05, length: 0.088, position: [0.044, 0, 0], rotation: {axis_angle: [0, 1, 0, 90]}, collide: false, material: robot, color: %s}"]),
    ("link7", 0.73552, (0.088, 0, 1.033), (0, 0, -1), (-2.8973, 2.8973), 200, 4, 12,
     ["{shape: cylinder, radius: 0.045, length: 0.107, position: [0, 0, -0.0535], material: robot, color: %s}"]),
]
FLANGE_Z = 1.033 - 0.107
PALM_CENTER = (0.088, 0.0, 0.9)       # palm box 16 x 12 x 5 cm under the flange
PALM_SIZE = (0.16, 0.12, 0.05)
FINGER_X = 0.062                      # finger row / thumb offset from the flange axis
FINGER_Z = 0.86                       # phalanx-1 joints, 1.5 cm under the palm
PHALANX = (0.054, 0.0384, 0.044)
PHALANX_MASS = (0.065, 0.0355, 0.0264)
TIP_Z = FINGER_Z - sum(PHALANX)       # 0.7236: fingertip capsule centre
# Grasp points below the palm centre, hand frame: the jar's axis for the side wrap, the
# handle's centre for the fingertip pinch.
WRAP_DEPTH = PALM_CENTER[2] - 0.82
PINCH_DEPTH = PALM_CENTER[2] - (TIP_Z + 0.006)


class Arm:
    def __init__(self, prefix, base, yaw):
        self.prefix = prefix
        self.base = base
        self.Rb = rot((0, 0, 1), yaw)
        self.yaw_deg = math.degrees(yaw)
        self.anchors = [self.world(a[2]) for a in ARM]
        self.axes = [mat_vec(self.Rb, a[3]) for a in ARM]
        self.palm0 = self.world(PALM_CENTER)
        self.worst = 0.0

    def world(self, p):
        return add(self.base, mat_vec(self.Rb, p))

    def fk(self, q):
        """Palm centre and rotation (world) at joint angles q."""
        R = IDENT
        t = [0.0, 0.0, 0.0]
        # Product of exponentials: T = exp(xi_1 q_1) ... exp(xi_7 q_7) T0.
        for i in range(7):
            Ri = rot(self.axes[i], q[i])
            ti = sub(self.anchors[i], mat_vec(Ri, self.anchors[i]))
            t = add(t, mat_vec(R, ti))
            R = mat_mul(R, Ri)
        p = add(t, mat_vec(R, self.palm0))
        return p, mat_mul(R, self.Rb)

    def ik(self, p_target, R_target, q0, iters=200):
        q = list(q0)
        lam = 0.02
        for _ in range(iters):
            p, R = self.fk(q)
            e = sub(p_target, p) + log_rot(mat_mul(R_target, transpose(R)))
            if max(abs(x) for x in e) < 1e-7:
                break
            J = [[0.0] * 7 for _ in range(6)]
            h = 1e-6
            for j in range(7):
                qq = list(q)
                qq[j] += h
                p2, R2 = self.fk(qq)
                d = sub(p2, p) + log_rot(mat_mul(R2, transpose(R)))
                for i in range(6):
                    J[i][j] = d[i] / h
            A = [[sum(J[i][k] * J[j][k] for k in range(7)) + (lam * lam if i == j else 0)
                  for j in range(6)] for i in range(6)]
            y = solve(A, e)
            dq = [sum(J[i][j] * y[i] for i in range(6)) for j in range(7)]
            for j in range(7):
                lo, hi = ARM[j][4]
                q[j] = min(hi - 0.02, max(lo + 0.02, q[j] + dq[j]))
        p, R = self.fk(q)
        err = math.sqrt(sum(x * x for x in sub(p_target, p)))
        rerr = math.sqrt(sum(x * x for x in log_rot(mat_mul(R_target, transpose(R)))))
        self.worst = max(self.worst, err + rerr)
        return q


def solve(A, b):
    n = len(b)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[piv] = M[piv], M[c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            for k in range(c, n + 1):
                M[r][k] -= f * M[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (M[r][n] - sum(M[r][k] * x[k] for k in range(r + 1, n))) / M[r][r]
    return x


# ----------------------------------------------------------------------------------------------
# The world.

TABLE_Z = 0.0
JAR_XY = (0.0, 0.05)
JAR_APOTHEM_IN, JAR_APOTHEM_OUT = 0.035, 0.043
JAR_BASE_H, JAR_WALL_H = 0.01, 0.125
JAR_WALLS = int(os.environ.get("JAR_WALLS", "6"))
HYDRO_RES = os.environ.get("HYDRO_RES", "0.1")
JAR_TOP = JAR_BASE_H + JAR_WALL_H            # 0.135
LID_R, LID_T = 0.043, 0.01
PLUG_R, PLUG_H = 0.032, 0.012
HANDLE = (0.08, 0.11, 0.035)                 # pinched along x by the right hand
HANDLE_Z = JAR_TOP + LID_T + HANDLE[2] / 2   # handle centre, lid at rest
MARBLE_R, MARBLE_M = 0.0115, 0.05            # steel marble of 50 g: r = 11.5 mm
BOWL_XY = (0.22, 0.05)
BOWL_SIZE, BOWL_WALL_H, BOWL_T = 0.2, 0.05, 0.01
WRAP_Z = 0.075                               # jar height of the left hand's wrap
SAMPLE = 0.125

LEFT = Arm("l_", (0.0, 0.52, 0.0), -math.pi / 2)    # faces -y
RIGHT = Arm("r_", (0.0, -0.45, 0.0), math.pi / 2)   # faces +y

# Palm orientations (world). Side wrap: the fingers point along -y, the pinch axis (hand x) is
# world x, the finger row spreads along world z. Top pinch: the fingers point down, pinch axis x.
R_WRAP = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]          # hand x->x, hand y->-z, hand z->y
R_PINCH = IDENT


def palm_for_wrap(center, tilt=0.0):
    """Palm centre and rotation for a jar whose axis passes through `center`, tilted by `tilt`
    (rad) about world y."""
    R = mat_mul(rot((0, 1, 0), tilt), R_WRAP)
    # The grasp point is WRAP_DEPTH along hand -z from the palm centre.
    p = add(center, mat_vec(R, (0, 0, WRAP_DEPTH)))
    return p, R


def palm_for_pinch(handle_center):
    return add(handle_center, (0, 0, PINCH_DEPTH)), R_PINCH


def fmt(x):
    s = "%.5f" % x
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def vec(v):
    return "[" + ", ".join(fmt(x) for x in v) + "]"


def plan(arm, keys, q_nom):
    """keys: list of (t, p, R). Returns per-joint [(t, q)] sampled every SAMPLE s, linear in
    position and in the rotation vector between keyframes. The first pose is solved from
    seeded starts (fixed pseudo-random seeds, so the output is reproducible); the first start
    whose whole path is solved to 1e-4 is used, nearest to the nominal posture first."""
    rng = random.Random(7)
    starts = []
    for _ in range(60):
        q0 = [rng.uniform(lo, hi) for (lo, hi) in (a[4] for a in ARM)]
        arm.worst = 0.0
        q = arm.ik(keys[0][1], keys[0][2], q0, 300)
        if arm.worst < 1e-4:
            starts.append((sum((a - b) ** 2 for a, b in zip(q, q_nom)), q))
    starts.sort()
    for _, q in starts:
        arm.worst = 0.0
        out = plan_from(arm, keys, q)
        if arm.worst < 1e-4:
            return out
    sys.exit("%s: no inverse-kinematics solution follows the keyframes" % arm.prefix)


def plan_from(arm, keys, q):
    out = []
    out.append((keys[0][0], q))
    for (t0, p0, R0), (t1, p1, R1) in zip(keys, keys[1:]):
        n = max(1, int(round((t1 - t0) / SAMPLE)))
        still = max(abs(x) for x in sub(p1, p0)) < 1e-9 and \
            max(abs(x) for x in log_rot(mat_mul(R1, transpose(R0)))) < 1e-9
        if still:
            out.append((t1, q))
            continue
        w = log_rot(mat_mul(R1, transpose(R0)))
        for k in range(1, n + 1):
            s = k / n
            p = add(p0, scale(sub(p1, p0), s))
            R = mat_mul(rot(w, s * math.sqrt(sum(x * x for x in w))) if any(w) else IDENT, R0)
            q = arm.ik(p, R, q)
            if arm.worst > 1e-4:
                return out
            out.append((t0 + s * (t1 - t0), q))
    return out


def pwl(points):
    return "{piecewise_linear: [" + ", ".join("[%s, %s]" % (fmt(t), fmt(v)) for t, v in points) + "]}"


def arm_bodies(arm, traj, hand_sp, color):
    lines = []
    w = lines.append
    yaw = fmt(arm.yaw_deg)
    rotation = "{axis_angle: [0, 0, 1, %s]}" % yaw
    w("  - name: %slink0" % arm.prefix)
    w("    static: true")
    w("    position: %s" % vec(arm.base))
    w("    rotation: %s" % rotation)
    w("    geoms: [{shape: cylinder, radius: 0.07, length: 0.14, position: [0, 0, 0.07], collide: false, material: robot, color: %s}]" % color[0])
    parent = arm.prefix + "link0"
    q_init = traj[0][1]
    for j, (name, mass, anchor, axis, lim, kp, kd, eff, geoms) in enumerate(ARM):
        pts = [(t, q[j]) for t, q in traj]
        # Drop interior points on straight segments of the setpoint.
        keep = [pts[0]]
        for a, b, c in zip(pts, pts[1:], pts[2:]):
            if abs((b[1] - a[1]) * (c[0] - a[0]) - (c[1] - a[1]) * (b[0] - a[0])) > 1e-7:
                keep.append(b)
        keep.append(pts[-1])
        w("  - name: %s%s" % (arm.prefix, name))
        w("    mass: %s" % fmt(mass))
        w("    position: %s" % vec(arm.world(anchor)))
        w("    rotation: %s" % rotation)
        w("    joint_position: %s" % fmt(q_init[j]))
        w("    joint: {type: revolute, parent: %s, axis: %s, limits: [%s, %s], damping: 0.1," %
          (parent, vec(axis), fmt(lim[0]), fmt(lim[1])))
        w("            actuator: {kp: %s, kd: %s, effort_limit: %s," % (kp, kd, eff))
        w("                       setpoint: %s}}" % pwl(keep))
        w("    geoms:")
        for g in geoms:
            w("      - " + g % (color[j % 2],))
        parent = arm.prefix + name
    w("  - name: %spalm" % arm.prefix)
    w("    mass: 0.4154")
    w("    position: %s" % vec(arm.world(PALM_CENTER)))
    w("    rotation: %s" % rotation)
    w("    joint: {type: fixed, parent: %slink7}" % arm.prefix)
    w("    geoms: [{shape: box, size: %s, material: hand, color: [0.15, 0.15, 0.17]}]" % vec(PALM_SIZE))
    fingers = [("index", (PALM_CENTER[0] + FINGER_X, 0.0435), (1, 0, 0), (0, 1, 0)),
               ("middle", (PALM_CENTER[0] + FINGER_X, 0.0), (1, 0, 0), (0, 1, 0)),
               ("ring", (PALM_CENTER[0] + FINGER_X, -0.0435), (1, 0, 0), (0, 1, 0)),
               ("thumb", (PALM_CENTER[0] - FINGER_X, 0.0), (0, 0, 1), (0, -1, 0))]
    for name, (x, y), abd_axis, flex_axis in fingers:
        sp = hand_sp[name == "thumb"]
        w("  - name: %s%s_0" % (arm.prefix, name))
        w("    mass: 0.0119")
        w("    inertia: [1e-6, 1e-6, 1e-6]")
        w("    position: %s" % vec(arm.world((x, y, FINGER_Z))))
        w("    rotation: %s" % rotation)
        w("    joint: {type: revolute, parent: %spalm, axis: %s, limits: [-0.47, 0.47], damping: 0.001," % (arm.prefix, vec(abd_axis)))
        w("            actuator: {kp: 3, kd: 0.05, setpoint: 0}}")
        z = FINGER_Z
        par = "%s%s_0" % (arm.prefix, name)
        for k in range(3):
            bn = "%s%s_%d" % (arm.prefix, name, k + 1)
            w("  - name: %s" % bn)
            w("    mass: %s" % fmt(PHALANX_MASS[k]))
            w("    position: %s" % vec(arm.world((x, y, z))))
            w("    rotation: %s" % rotation)
            w("    joint_position: %s" % fmt(sp[k][0][1]))
            w("    joint: {type: revolute, parent: %s, axis: %s, limits: [-0.19, 1.6], damping: 0.001," % (par, vec(flex_axis)))
            w("            actuator: {kp: 5, kd: 0.05, setpoint: %s}}" % pwl(sp[k]))
            w("    geoms: [{shape: capsule, radius: 0.012, length: %s, position: [0, 0, %s], material: hand, color: [0.2, 0.2, 0.22]}]"
              % (fmt(PHALANX[k]), fmt(-PHALANX[k] / 2)))
            z -= PHALANX[k]
            par = bn
    return lines


def flex(times_values):
    """Same flexion profile for the three phalanges: [(t, [q1, q2, q3])]."""
    return [[(t, v[k]) for t, v in times_values] for k in range(3)]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "dual_arm_jar.yaml"))
    jx, jy = JAR_XY
    jar_c = (jx, jy, WRAP_Z)
    lift_c = (0.06, jy, WRAP_Z + 0.17)
    T = {}  # event times [s]
    # Left arm: approach along -y, wrap, hold while the lid comes off, lift and carry over the
    # bowl, tilt, upright, set down, open, back off.
    back = (0, 0.12, 0)
    tilt = 2.1  # about world y: the jar's mouth swings towards +x (the bowl)
    left_keys = [
        (0.0, *palm_for_wrap(add(jar_c, back))),
        (0.3, *palm_for_wrap(add(jar_c, back))),
        (1.3, *palm_for_wrap(jar_c)),
        (5.0, *palm_for_wrap(jar_c)),
        (6.0, *palm_for_wrap(add(jar_c, (0, 0, 0.06)))),
        (7.0, *palm_for_wrap(lift_c)),
        (8.2, *palm_for_wrap(lift_c, tilt)),
        (9.7, *palm_for_wrap(lift_c, tilt)),
        (10.9, *palm_for_wrap(lift_c)),
        (11.9, *palm_for_wrap(add(jar_c, (0, 0, 0.06)))),
        (12.6, *palm_for_wrap(add(jar_c, (0, 0, 0.004)))),
        (16.0, *palm_for_wrap(add(jar_c, (0, 0, 0.004)))),
        (16.6, *palm_for_wrap(add(jar_c, (0, 0.004, 0.004)))),
        (17.5, *palm_for_wrap(add(add(jar_c, back), (0, 0, 0.004)))),
    ]
    # Right arm: over the handle, down, pinch, lift the lid and park it at -x, back over the
    # jar, down, release, up.
    h0 = (jx, jy, HANDLE_Z)
    park = (-0.2, -0.05, HANDLE_Z + 0.15)
    right_keys = [
        (0.0, *palm_for_pinch(add(h0, (0, 0, 0.1)))),
        (1.5, *palm_for_pinch(add(h0, (0, 0, 0.1)))),
        (2.5, *palm_for_pinch(h0)),
        (3.3, *palm_for_pinch(h0)),
        (4.3, *palm_for_pinch(add(h0, (0, 0, 0.1)))),
        (5.3, *palm_for_pinch(park)),
        (12.8, *palm_for_pinch(park)),
        (13.8, *palm_for_pinch(add(h0, (0, 0, 0.06)))),
        (14.8, *palm_for_pinch(add(h0, (0, 0, 0.003)))),
        (15.8, *palm_for_pinch(add(h0, (0, 0, 0.003)))),
        (16.6, *palm_for_pinch(add(h0, (0, 0, 0.1)))),
    ]
    duration = 18.0
    q_nom_l = [0.0, 0.3, 0.0, -2.0, 0.0, 2.3, 0.785]
    q_nom_r = [0.0, 0.3, 0.0, -2.0, 0.0, 2.3, 0.0]
    # Start from a posture found from a nominal guess by stepping towards the first key.
    traj_l = plan(LEFT, left_keys, q_nom_l)
    traj_r = plan(RIGHT, right_keys, q_nom_r)
    # Hands: the left hand wraps at 1.3-1.8 s and opens at 16.0-16.5 s; the right pinches at
    # 2.5-3.3 s and lets go at 15.0-15.6 s.
    open_f = [0.0, 0.0, 0.0]
    wrap_f = [0.55, 0.9, 0.9]
    wrap_t = [0.55, 0.9, 0.9]
    pinch = [0.25, 0.1, 0.1]
    left_sp = (flex([(0, open_f), (1.3, open_f), (1.8, wrap_f), (16.0, wrap_f), (16.5, open_f)]),
               flex([(0, open_f), (1.3, open_f), (1.8, wrap_t), (16.0, wrap_t), (16.5, open_f)]))
    right_sp = (flex([(0, open_f), (2.5, open_f), (3.3, pinch), (15.0, pinch), (15.6, open_f)]),
                flex([(0, open_f), (2.5, open_f), (3.3, pinch), (15.0, pinch), (15.6, open_f)]))

    L = []
    w = L.append
    w(HEADER.rstrip("\n"))
    w('description: "Dual-arm jar task: two 7-DOF arms + 16-DOF hands open a jar (pressure-field jar-lid contact), pour 16 marbles into a bowl, close it (SAP paper, 160 DOF)"')
    w("time_step: 0.005")
    w("duration: %s" % fmt(duration))
    w("integrator: implicit_euler")
    w("solver: {rel_tolerance: 1e-3}")
    w("free_motion: {max_iterations: 400}")
    w("camera: {target: [0.05, 0.05, 0.15], distance: 1.3, azimuth: 30, elevation: 25}")
    w("materials:")
    w("  - {name: table, stiffness: 1e7, dissipation_time: 0.005, friction: 0.5}")
    w("  - {name: robot, stiffness: 1e7, dissipation_time: 0.005, friction: 0.5}")
    w("  - {name: hand, stiffness: 1e6, dissipation_time: 0.005, friction: 1.0}")
    w("  - {name: jar, stiffness: 1e7, dissipation_time: 0.005, friction: 0.6,")
    w("     hydroelastic: {modulus: 5e6, resolution: %s}}" % HYDRO_RES)
    w("  - {name: lid, stiffness: 1e7, dissipation_time: 0.005, friction: 0.6,")
    w("     hydroelastic: {modulus: 5e6, resolution: %s}}" % HYDRO_RES)
    w("  - {name: marble, stiffness: 1e7, dissipation_time: 0.005, friction: 0.3}")
    w("  - {name: bowl, stiffness: 1e7, dissipation_time: 0.005, friction: 0.5}")
    w("pairs:  # jar-lid is a pressure-field contact; every other pair with jar or lid is point contact")
    for m in ("jar", "lid"):
        for o in ("table", "robot", "hand", "marble", "bowl"):
            w("  - {materials: [%s, %s], contact: point}" % (m, o))
    w("bodies:")
    w("  - name: table")
    w("    static: true")
    w("    geoms: [{shape: half_space, material: table, color: [0.55, 0.6, 0.65]}]")
    L += arm_bodies(LEFT, traj_l, left_sp, ("[0.95, 0.95, 0.95]", "[0.3, 0.3, 0.33]"))
    L += arm_bodies(RIGHT, traj_r, right_sp, ("[0.9, 0.92, 0.97]", "[0.28, 0.3, 0.36]"))
    # Jar: an octagonal container, base and eight walls, all compliant boxes.
    side = 2 * JAR_APOTHEM_OUT * math.tan(math.pi / JAR_WALLS)
    w("  - name: jar")
    w("    mass: 0.3")
    w("    position: %s" % vec((jx, jy, 0)))
    w("    geoms:")
    w("      - {shape: cylinder, radius: %s, length: %s, position: [0, 0, %s], material: jar, color: [0.75, 0.85, 0.95, 0.6]}"
      % (fmt(JAR_APOTHEM_OUT), fmt(JAR_BASE_H), fmt(JAR_BASE_H / 2)))
    a_mid = (JAR_APOTHEM_IN + JAR_APOTHEM_OUT) / 2
    for k in range(JAR_WALLS):
        ang = k * 360.0 / JAR_WALLS
        c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))
        w("      - {shape: box, size: [%s, %s, %s], position: [%s, %s, %s], rotation: {axis_angle: [0, 0, 1, %s]}, material: jar, color: [0.75, 0.85, 0.95, 0.6]}"
          % (fmt(JAR_APOTHEM_OUT - JAR_APOTHEM_IN), fmt(side), fmt(JAR_WALL_H), fmt(a_mid * c),
             fmt(a_mid * s), fmt(JAR_BASE_H + JAR_WALL_H / 2), fmt(ang)))
    w("  - name: lid")
    w("    mass: 0.08")
    w("    position: %s" % vec((jx, jy, JAR_TOP)))
    w("    geoms:")
    w("      - {shape: cylinder, radius: %s, length: %s, position: [0, 0, %s], material: lid, color: [0.85, 0.3, 0.25]}"
      % (fmt(LID_R), fmt(LID_T), fmt(LID_T / 2 + 0.0005)))
    w("      - {shape: cylinder, radius: %s, length: %s, position: [0, 0, %s], material: lid, color: [0.85, 0.3, 0.25]}"
      % (fmt(PLUG_R), fmt(PLUG_H), fmt(-PLUG_H / 2 + 0.0005)))
    w("      - {shape: box, size: %s, position: [0, 0, %s], material: lid, hydroelastic: {modulus: 0}, color: [0.7, 0.25, 0.2]}"
      % (vec(HANDLE), fmt(LID_T + HANDLE[2] / 2 + 0.0005)))
    # Marbles: 4 layers of 2 x 2.
    n = 0
    for layer in range(4):
        z = JAR_BASE_H + MARBLE_R + 0.001 + layer * (2 * MARBLE_R + 0.001)
        off = 0.0125
        for dx, dy in ((-off, -off), (off, -off), (-off, off), (off, off)):
            w("  - name: marble_%d" % n)
            w("    mass: %s" % fmt(MARBLE_M))
            w("    position: %s" % vec((jx + dx, jy + dy, z)))
            w("    geoms: [{shape: sphere, radius: %s, material: marble, color: [0.25, 0.35, 0.8]}]" % fmt(MARBLE_R))
            n += 1
    # Bowl: a free square container of boxes.
    bx, by = BOWL_XY
    w("  - name: bowl")
    w("    mass: 0.4")
    w("    position: %s" % vec((bx, by, 0)))
    w("    geoms:")
    w("      - {shape: box, size: [%s, %s, %s], position: [0, 0, %s], material: bowl, color: [0.9, 0.85, 0.6]}"
      % (fmt(BOWL_SIZE), fmt(BOWL_SIZE), fmt(BOWL_T), fmt(BOWL_T / 2)))
    hw = BOWL_SIZE / 2 - BOWL_T / 2
    for px, py, sx, sy in ((hw, 0, BOWL_T, BOWL_SIZE), (-hw, 0, BOWL_T, BOWL_SIZE),
                           (0, hw, BOWL_SIZE, BOWL_T), (0, -hw, BOWL_SIZE, BOWL_T)):
        w("      - {shape: box, size: [%s, %s, %s], position: [%s, %s, %s], material: bowl, color: [0.9, 0.85, 0.6]}"
          % (fmt(sx), fmt(sy), fmt(BOWL_WALL_H), fmt(px), fmt(py), fmt(BOWL_WALL_H / 2)))
    with open(out, "w") as f:
        f.write("\n".join(L) + "\n")
    # Velocity dimension: 7 + 16 joints per arm and hand, 6 per free body (jar, lid, marbles,
    # bowl).
    nv = 2 * (len(ARM) + 16) + 6 * (2 + n + 1)
    print("wrote %s: %d marbles, velocity dimension %d" % (out, n, nv))


HEADER = """\
# Dual-arm jar task of the SAP paper (Castro et al., dual-arm manipulation, Figs. 1, 18-21): two
# Panda-like 7-DOF arms with Allegro-like 16-DOF hands open a jar, pour its 16 marbles into a
# bowl, close the jar and set it down. Velocity dimension 2 x 7 + 2 x 16 + jar and lid 12
# + 16 marbles 96 + bowl 6 = 160, as in the paper. Jar-lid contact is a pressure-field
# (hydroelastic) contact between two compliant bodies; every other pair is point contact.
# δt = 5 ms, SAP with ε_r = 1e-3.
#
# GENERATED by scenes/paper/tools/make_dual_arm_jar.py (python3, standard library); edit the
# script and rerun `python3 scenes/paper/tools/make_dual_arm_jar.py`, not this file.
#
# Modelling (the arm and hand are robot_dish_pile.yaml's, see its header; the paper's robots are
# Kuka IIWA arms with Allegro hands driven by Cartesian controllers with force feedback):
# * Arms: Panda DH geometry and link masses, links 1-6 visual only, link 7, palm and phalanges
#   collide; joint PD without gravity compensation (kp 3000 N m/rad on joints 1-4).
#   Left arm based at (0, 0.52, 0) facing -y, right arm at (0, -0.45, 0) facing +y.
# * Hands: palm 16 x 12 x 5 cm; a row of three fingers 6.2 cm to one side of the flange axis and
#   the thumb 6.2 cm to the other side, opposing them (the dish-pile hand's thumb sits 5.8 cm
#   behind the fingers; here the gap is widened to 12.4 cm so the hand can wrap the jar). Finger
#   PD kp 5 N m/rad, no effort limit.
# * Jar: 0.3 kg hexagonal container, 8.6 cm across the flats, 13.5 cm tall: a compliant cylinder
#   base and six compliant box walls 8 mm thick (E = 5e6 Pa, resolution 0.1 m, i.e. the coarsest
#   mesh of each shape). Lid: 80 g, a compliant disc resting on the rim with a compliant plug that
#   centres it, and a rigid handle bar on top. The jar-lid surface has about 500-700 faces while
#   the lid is on (eight walls: about 1000; a 4 cm resolution: about 1300).
# * Marbles: 16 rigid spheres of 50 g, r = 11.5 mm (steel), μ = 0.3, in four layers.
# * Bowl: a free 0.4 kg square container of boxes, 20 x 20 x 5 cm, at +x of the jar.
# * Joint keyframes: inverse kinematics of Cartesian palm keyframes, sampled every 0.125 s.
#
# Task (s): 0.3-1.3 the left hand moves in around the jar; 1.3-1.8 it wraps; 1.5-2.5 the right
# hand descends on the lid handle; 2.5-3.3 it pinches; 3.3-4.3 it lifts the lid off; 4.3-5.3 it
# parks the lid at -x; 5.0-7.0 the left hand lifts the jar over the bowl; 7.0-8.2 tilts it
# 120 degrees; 8.2-9.7 the marbles pour; 9.7-10.9 upright; 10.9-12.6 the jar is set back down;
# 12.8-14.8 the right hand puts the lid back; 15.0-15.6 it lets go; 16.0-16.5 the left hand
# opens; both hands back off.
# What to see: the jar-lid pressure field while the lid is on (0-3.3 s, 14.8-18 s), the contact
# count falling from about 750 to about 100 when the lid comes off (Fig. 18), the marbles
# sliding out at the tilt (the most Newton iterations per step). `contactlab reproduce --only
# dual_arm_jar` prints DOF, iterations, e_m, constraints and faces per step, marbles in the bowl
# and whether the lid is back on.
# * free_motion.max_iterations 400: the implicit free-motion iteration (Newton on M plus the
#   diagonal PD and damping terms) needs a median of 11 iterations per step but up to about
#   260 while the jar is held tilted or pressed down (10-15 % of the steps exceed the default
#   cap of 20 there).
# Try: contactlab view scenes/paper/dual_arm_jar.yaml
"""

if __name__ == "__main__":
    main()
