// c/model.hpp — the C handle behind isocost_model.
#pragma once

#include "isocost/cost_model.hpp"

/// What an isocost_model* points to: one immutable CostModel.
struct isocost_model {
  isocost::CostModel model;
};
