import Lake
open Lake DSL

/-! Build configuration for the formal library. Core Lean only: no dependencies. -/

package «plga-formal» where
  leanOptions := #[⟨`autoImplicit, false⟩]

@[default_target]
lean_lib Formal where
  globs := #[.andSubmodules `Formal]
