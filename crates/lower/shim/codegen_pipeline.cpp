// hx-lower's codegen pipeline: a legacy::PassManager with LLVM's codegen passes added once for a
// target machine and an emit kind (object or assembly), run on one verified module after
// another, its output buffer cleared before each run (as `llc -compile-twice` does). The C API's
// LLVMTargetMachineEmitToMemoryBuffer builds and frees this pipeline on every call; per emit it
// is the same passes in the same order, so the bytes are the same (tests/tests/codegen_pipeline.rs).
//
// Compiled by crates/lower/build.rs against LLVM 22 headers (Debian's llvm-22-dev) and linked to
// the Rust toolchain's libLLVM, which exports these C++ symbols (shared/LLVM.md). Nothing here
// throws or aborts on its own: the caller hands only modules that passed the verifier.

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Core.h"

#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Pipeline {
  llvm::TargetMachine *tm;
  llvm::legacy::PassManager pm;
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out;
  Pipeline(llvm::TargetMachine *tm) : tm(tm), out(buffer) {}
};

// A pass gate (LLVM's OptPassGate, the hook -opt-bisect-limit uses) that skips each rule's pass
// (by pass argument or pass name) on that rule's function, and runs every other pass. Passes
// that may be skipped ask the gate of their LLVMContext (FunctionPass::skipFunction); passes
// that must run do not ask.
struct SkipGate : llvm::OptPassGate {
  // (pass, function as "function (NAME)", the description passes give)
  std::vector<std::pair<std::string, std::string>> rules;
  llvm::OptPassGate *previous = nullptr;
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef ir) const override {
    for (const auto &r : rules)
      if (pass == r.first && ir == r.second)
        return false;
    return true;
  }
};

} // namespace

extern "C" {

// Installs on `context` a gate that skips pass `passes[i]` on function `functions[i]` for each
// rule i < `nrules` (names, nul-terminated); returns it (null when out of memory: nothing
// installed). Remove it with hx_pass_gate_remove before the context is used for anything else
// or disposed.
void *hx_pass_gate_install(LLVMContextRef context, const char *const *passes, const char *const *functions,
                           size_t nrules) {
  SkipGate *g = new (std::nothrow) SkipGate();
  if (!g)
    return nullptr;
  for (size_t i = 0; i < nrules; i++)
    g->rules.emplace_back(passes[i], std::string("function (") + functions[i] + ")");
  llvm::LLVMContext *ctx = llvm::unwrap(context);
  g->previous = &ctx->getOptPassGate();
  ctx->setOptPassGate(*g);
  return g;
}

// Puts back the gate `context` had before hx_pass_gate_install and frees `gate`.
void hx_pass_gate_remove(LLVMContextRef context, void *gate) {
  SkipGate *g = static_cast<SkipGate *>(gate);
  if (!g)
    return;
  llvm::unwrap(context)->setOptPassGate(*g->previous);
  delete g;
}

// The LLVM version of the headers this file was compiled against.
void hx_codegen_pipeline_header_version(unsigned *major, unsigned *minor, unsigned *patch) {
  *major = LLVM_VERSION_MAJOR;
  *minor = LLVM_VERSION_MINOR;
  *patch = LLVM_VERSION_PATCH;
}

// A pipeline emitting objects (assembly != 0: assembly text) with `tm`, which must outlive it.
// Null if the target machine cannot emit that kind of file.
void *hx_codegen_pipeline_create(LLVMTargetMachineRef tm_ref, int assembly) {
  // The C API's own conversion (TargetMachine.cpp): the handle is the TargetMachine.
  llvm::TargetMachine *tm = reinterpret_cast<llvm::TargetMachine *>(tm_ref);
  Pipeline *p = new (std::nothrow) Pipeline(tm);
  if (!p)
    return nullptr;
  llvm::CodeGenFileType kind = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  // The arguments LLVMTargetMachineEmitToMemoryBuffer passes: no dwo stream, verifier off (the
  // caller verified), the pass manager makes its own MachineModuleInfo.
  if (tm->addPassesToEmitFile(p->pm, p->out, nullptr, kind)) {
    delete p;
    return nullptr;
  }
  return p;
}

// Runs the pipeline on `module`; `*data`/`*len` is the emitted file, valid until the next run or
// the pipeline's disposal.
void hx_codegen_pipeline_run(void *pipeline, LLVMModuleRef module_ref, const char **data, size_t *len) {
  Pipeline *p = static_cast<Pipeline *>(pipeline);
  llvm::Module *m = llvm::unwrap(module_ref);
  p->buffer.clear();
  // As the C API does before every emit.
  m->setDataLayout(p->tm->createDataLayout());
  p->pm.run(*m);
  *data = p->buffer.data();
  *len = p->buffer.size();
}

void hx_codegen_pipeline_dispose(void *pipeline) { delete static_cast<Pipeline *>(pipeline); }

} // extern "C"
