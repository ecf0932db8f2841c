// c/density.hpp — the C handle behind isocost_density.
#pragma once

#include "isocost/density.hpp"

/// What an isocost_density* points to: one immutable Density.
struct isocost_density {
  isocost::Density density;
};
