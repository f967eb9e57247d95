// Writes docs/compatibility.md from the built escape matrix (run through `npm run docs:compat`).
import { writeFileSync } from 'node:fs';
import { BUILTIN_ESCAPE_MATRIX } from '../dist/core/escape/index.js';
import { renderCompatibilityDoc } from '../dist/core/escape/compat-doc.js';

const target = new URL('../docs/compatibility.md', import.meta.url);
writeFileSync(target, renderCompatibilityDoc(BUILTIN_ESCAPE_MATRIX));
process.stdout.write(`wrote ${target.pathname}\n`);
