#include "peer_zoltan.hpp"

#include <zoltan.h>

#include <cstdio>
#include <string>

#include "isocost/error.hpp"

namespace isocost::bench::zoltan {
namespace {

// Zoltan's query callbacks: it pulls the objects through these.
int num_obj(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<int>(static_cast<const Objects*>(data)->weights.size());
}

void obj_list(void* data, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim, float* wgts,
              int* ierr) {
  const auto& o = *static_cast<const Objects*>(data);
  for (std::size_t i = 0; i < o.weights.size(); ++i) {
    gids[i] = static_cast<ZOLTAN_ID_TYPE>(o.first_id + static_cast<std::int64_t>(i));
    lids[i] = static_cast<ZOLTAN_ID_TYPE>(i);
    // Zoltan's object weights are floats.
    if (wdim > 0) wgts[i] = static_cast<float>(o.weights[i]);
  }
  *ierr = ZOLTAN_OK;
}

int num_geom(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<const Objects*>(data)->dims;
}

void geom_multi(void* data, int, int, int num, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int dims,
                double* out, int* ierr) {
  const auto& o = *static_cast<const Objects*>(data);
  for (int i = 0; i < num; ++i)
    for (int a = 0; a < dims; ++a)
      out[i * dims + a] =
          o.coords[static_cast<std::size_t>(lids[i]) * static_cast<std::size_t>(dims) +
                   static_cast<std::size_t>(a)];
  *ierr = ZOLTAN_OK;
}

void check(int rc, const char* what) {
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN)
    throw Error(std::string("bench_peers: Zoltan ") + what + " failed (" + std::to_string(rc) +
                ")");
}

float zoltan_version = 0;

}  // namespace

void initialize(int argc, char** argv) {
  check(Zoltan_Initialize(argc, argv, &zoltan_version), "Zoltan_Initialize");
}

std::string version() {
  char text[32];
  std::snprintf(text, sizeof text, "Zoltan %.2f", static_cast<double>(zoltan_version));
  return text;
}

Partitioned partition(MPI_Comm comm, const Objects& objects, const Settings& s) {
  Zoltan_Struct* zz = Zoltan_Create(comm);
  Partitioned out;
  // Each parameter is recorded as it is set, so the printed settings are the used ones.
  const auto set = [&](const char* key, const std::string& value) {
    Zoltan_Set_Param(zz, key, value.c_str());
    out.settings += (out.settings.empty() ? "" : " ") + std::string(key) + "=" + value;
  };
  set("DEBUG_LEVEL", "0");
  set("LB_METHOD", s.method);
  set("LB_APPROACH", "PARTITION");
  set("NUM_GID_ENTRIES", "1");
  set("NUM_LID_ENTRIES", "1");
  set("OBJ_WEIGHT_DIM", "1");
  set("NUM_GLOBAL_PARTS", std::to_string(s.parts));
  set("IMBALANCE_TOL", s.imbalance_tol);
  if (s.rectilinear) set("RCB_RECTILINEAR_BLOCKS", "1");
  // Every object's part in the export list, not only the moved ones.
  set("RETURN_LISTS", "PARTITION ASSIGNMENTS");
  auto* data = const_cast<Objects*>(&objects);  // Zoltan's callbacks take void*
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, data);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, data);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, data);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, data);

  int changes = 0, ngid = 0, nlid = 0, nimp = 0, nexp = 0;
  ZOLTAN_ID_PTR imp_g = nullptr, imp_l = nullptr, exp_g = nullptr, exp_l = nullptr;
  int *imp_p = nullptr, *imp_to = nullptr, *exp_p = nullptr, *exp_to = nullptr;
  const int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &imp_g, &imp_l, &imp_p,
                                     &imp_to, &nexp, &exp_g, &exp_l, &exp_p, &exp_to);
  out.part.assign(objects.weights.size(), -1);
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN)
    for (int i = 0; i < nexp; ++i) out.part[exp_l[i]] = exp_to[i];
  Zoltan_LB_Free_Part(&imp_g, &imp_l, &imp_p, &imp_to);
  Zoltan_LB_Free_Part(&exp_g, &exp_l, &exp_p, &exp_to);
  Zoltan_Destroy(&zz);
  check(rc, "Zoltan_LB_Partition");
  return out;
}

}  // namespace isocost::bench::zoltan
