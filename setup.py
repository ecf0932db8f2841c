"""Builds the isocost extension module through CMake (pyproject.toml).

The module is built for the interpreter running this script (pip's), with
the C++ libraries linked in statically. Environment:
  ISOCOST_BUILD_DIR   reuse this configured CMake tree instead of a fresh one
                      (its Python must be the same version as pip's)
  ISOCOST_CMAKE_ARGS  more arguments for a fresh configure, e.g.
                      "-DISOCOST_BUILD_MPI=OFF"
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default 2)
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        given = os.environ.get("ISOCOST_BUILD_DIR")
        tree = pathlib.Path(given).resolve() if given else pathlib.Path(self.build_temp).resolve() / "cmake"
        if not given:
            subprocess.check_call(
                ["cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
                 "-DPython3_EXECUTABLE=" + sys.executable, "-DISOCOST_BUILD_PYTHON=ON",
                 "-DBUILD_SHARED_LIBS=OFF",  # the module carries the library in it
                 "-DISOCOST_BUILD_CLI=OFF", "-DISOCOST_BUILD_TESTS=OFF",
                 "-DISOCOST_BUILD_BENCH=OFF", "-DISOCOST_BUILD_EXAMPLES=OFF",
                 "-DISOCOST_BUILD_FORTRAN=OFF"]
                + shlex.split(os.environ.get("ISOCOST_CMAKE_ARGS", "")))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(["cmake", "--build", str(tree), "--target", "isocost_python", "-j", jobs])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        module = tree / "python" / "module" / ("isocost" + suffix)
        if not module.exists():
            built = sorted(p.name for p in (tree / "python" / "module").glob("isocost*"))
            sys.exit(f"setup.py: expected {module.name} (for {sys.executable}) in "
                     f"{module.parent}, found {built or 'nothing'}; a reused tree "
                     "(ISOCOST_BUILD_DIR) must be configured for the same Python")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)


setup(
    ext_modules=[CMakeExtension("isocost")],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/, which is the CMake tree of scripts/demo.
    options={"build": {"build_base": os.environ.get("ISOCOST_PYTHON_BUILD_BASE", "build-python")}},
)
