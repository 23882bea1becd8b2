// Internal to `contactlab reproduce`: the experiment functions, one file per paper. Each is listed
// once in the experiment table of reproduce.cc (id, title, paper section, digest source, quick and
// full settings); adding an experiment is a function here, its body in the paper's file and a row
// in the table.
#pragma once

#include "app/reproduce/experiment.h"

namespace contactlab {
namespace reproduce {

// sap_paper.cc: seed 000, SAP (Castro, Permenter, Han).
void SpringCylinder(Experiment& ex, const ReproduceOptions& opt);  // §VI-B
void Clutter(Experiment& ex, const ReproduceOptions& opt);         // §VI-C
void ClutterScaling(Experiment& ex, const ReproduceOptions& opt);  // §VI-C
void SigmaSweep(Experiment& ex, const ReproduceOptions& opt);      // §VI-C
void SoftBubbleGripper(Experiment& ex, const ReproduceOptions& opt);  // §VI-D
void DualArmJar(Experiment& ex, const ReproduceOptions& opt);         // Figs. 1, 18-21

// irrotational_paper.cc: seed 004, irrotational contact fields (Castro, Han, Masterjohn).
void ConveyorBelt(Experiment& ex, const ReproduceOptions& opt);      // §IX-A
void FallingSphere(Experiment& ex, const ReproduceOptions& opt);     // §IX-B
void SlidingRod(Experiment& ex, const ReproduceOptions& opt);        // §IX-C
void ClutterStiffness(Experiment& ex, const ReproduceOptions& opt);  // §X-A
void ClutterModels(Experiment& ex, const ReproduceOptions& opt);     // §X-A

// first_order_paper.cc: seed 002, Drumwright's first-order constraint solver.
void BoxOnRamp(Experiment& ex, const ReproduceOptions& opt);       // E7
void SphereStack(Experiment& ex, const ReproduceOptions& opt);     // E8
void StiffPendulum(Experiment& ex, const ReproduceOptions& opt);   // E4-E5
void CubeFoundation(Experiment& ex, const ReproduceOptions& opt);  // E6

// al_paper.cc: seed 001, augmented Lagrangian (CANAL, SubADMM; Lee et al.).
void DishPile(Experiment& ex, const ReproduceOptions& opt);       // B1
void RobotDishPile(Experiment& ex, const ReproduceOptions& opt);  // B2
void BoltNut(Experiment& ex, const ReproduceOptions& opt);        // A1-A2 (not expressible)
void Pouring(Experiment& ex, const ReproduceOptions& opt);        // C

}  // namespace reproduce
}  // namespace contactlab
