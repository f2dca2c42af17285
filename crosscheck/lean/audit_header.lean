public meta import Lean.Elab.Command
public meta import Lean.Util.CollectAxioms

/-! Axiom-audit commands, prepended to the concatenated library by `plga lean audit`.
`#plga_audit n` prints `PLGA-AUDIT <name> <kind> <statement hash> <axiom>|<kind>|<L or I>,...` with the
constants without a proof that `n` depends on (`Lean.collectAxioms`: real axioms, and, in
this build, imported theorems, which arrive without proofs; `I` marks imported ones) and the structural hash of its elaborated
statement, or `PLGA-AUDIT-MISSING <name>` when no such public declaration exists.
(Written with structural recursion only: this Lean build lacks compiled code for
`Name.toString`, `Nat.repr`, `throwError` and friends.) -/

open Lean Elab Command

meta def plgaNatStr : Nat → Nat → String
  | 0, _ => ""
  | fuel + 1, k =>
    if k < 10 then String.singleton (Char.ofNat (48 + k))
    else plgaNatStr fuel (k / 10) ++ String.singleton (Char.ofNat (48 + k % 10))

meta def plgaNameStr : Name → String
  | .anonymous => ""
  | .str .anonymous s => s
  | .str p s => plgaNameStr p ++ "." ++ s
  | .num p k => plgaNameStr p ++ "." ++ plgaNatStr 40 k

meta def plgaNamesStr : List Name → String
  | [] => ""
  | n :: ns => plgaNameStr n ++ "," ++ plgaNamesStr ns

meta def plgaKind : ConstantInfo → String
  | .thmInfo _ => "theorem"
  | .defnInfo _ => "def"
  | .axiomInfo _ => "axiom"
  | _ => "other"

/-- `name|kind|origin` per constant: origin `L` = declared in this file, `I` = imported. -/
meta def plgaAxiomsStr (env : Environment) : List Name → String
  | [] => ""
  | n :: ns =>
    let kind := match env.find? n with
      | some ci => plgaKind ci
      | none => "?"
    let origin := match env.getModuleIdxFor? n with
      | some _ => "I"
      | none => "L"
    plgaNameStr n ++ "|" ++ kind ++ "|" ++ origin ++ "," ++ plgaAxiomsStr env ns

syntax (name := plgaAuditCmd) "#plga_audit " ident : command

@[command_elab plgaAuditCmd] public meta def plgaAuditElab : CommandElab := fun stx => do
  let n := stx[1].getId
  let env ← getEnv
  match env.find? n with
  | none => IO.println ("PLGA-AUDIT-MISSING " ++ plgaNameStr n)
  | some ci =>
    let axs ← Lean.collectAxioms n
    IO.println ("PLGA-AUDIT " ++ plgaNameStr n ++ " " ++ plgaKind ci ++ " "
      ++ plgaNatStr 40 ci.type.hash.toNat ++ " " ++ plgaAxiomsStr env axs.toList)
