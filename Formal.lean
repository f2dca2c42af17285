module

public import Formal.Data.Sum
public import Formal.Data.Matrix
public import Formal.Analytic
public import Formal.Metric
