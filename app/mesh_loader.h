#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/model.h"

namespace contactlab {
std::shared_ptr<ConvexHull> LoadConvexMesh(const std::string& path, const Vec3& scale);
std::shared_ptr<ConvexHull> MakeConvexHull(const std::vector<Vec3>& points);
}
