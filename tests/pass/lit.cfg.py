# lit configuration for the quanta pass tests. Paths come from lit.site.cfg.py, which
# CMake generates next to the build (see pass/Tests.cmake).
import os
import lit.formats

config.name = "quanta-pass"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp"]
config.excludes = ["Inputs", "runtime"]
config.test_source_root = os.path.dirname(__file__)

llvm_bin = config.llvm_bin
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", "")])
# Options must come from the RUN lines alone.
for var in ["QUANTA_MODE", "QUANTA_BOUND", "QUANTA_EXT_CALL_COST", "QUANTA_FLAG_STRIDE",
            "QUANTA_COUNT_PROBES", "QUANTA_STATS", "QUANTA_STATS_FILE", "QUANTA_LOCK_GUARD",
            "QUANTA_FLAG_TWINS"]:
    config.environment.pop(var, None)

plugin = config.quanta_plugin
config.substitutions.append(("%opt", f"{llvm_bin}/opt -load-pass-plugin={plugin}"))
config.substitutions.append(("%clang", f"{llvm_bin}/clang -fno-discard-value-names -fpass-plugin={plugin} -Xclang -load -Xclang {plugin}"))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%llc", f"{llvm_bin}/llc"))
config.substitutions.append(("%wrappers", config.wrapper_dir))
config.substitutions.append(("%quanta_include", os.path.join(os.path.dirname(__file__), "..", "..", "include")))
