module

public import Formal.Data.Sum
public import Formal.Data.Matrix
public import Formal.Analytic
public import Formal.Metric
public import Formal.Attention.Softmax
public import Formal.Attention.Basic
public import Formal.Attention.MultiHead
public import Formal.Attention.Collapse
public import Formal.Attention.Absorb
public import Formal.Attention.Cache
public import Formal.Rope.Block
public import Formal.Rope.Rotation
public import Formal.Rope.Commutant
public import Formal.Rope.Projection
public import Formal.Rope.FinBij
public import Formal.Rope.Kernel
public import Formal.Rope.Collapse
public import Formal.Rope.Flat
public import Formal.Rope.Witness
