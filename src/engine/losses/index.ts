// The loss families of docs/METHODS.md §1–§3 and the evaluation helpers of §6 (tfjs only; every backend).
export * from './lossTypes';
export * from './tokenLogProbs';
export * from './actObsLoss';
export * from './gradientGeometry';
export * from './grpoLoss';
export * from './opdLoss';
export * from './evalMetrics';
