export { BUILTIN_ESCAPE_CELLS, BUILTIN_ESCAPE_MATRIX, createEscapeMatrix, lookupCell } from './matrix.js';
export { EscapeMatrixFileError, escapeCellSchema, parseEscapeMatrixFile } from './schema.js';
export { SOURCES } from './sources.js';
export type {
  CellKey,
  CellOs,
  EscapeCell,
  EscapeInstructions,
  EscapeKind,
  EscapeMatrix,
  EscapeStrategy,
} from './types.js';
export { cellIndexKey, ESCAPE_HINTS, ESCAPE_STRATEGIES } from './types.js';
