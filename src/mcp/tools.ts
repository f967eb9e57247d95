import { folderTools } from './folder-tools.js';
import { insightTools } from './insight-tools.js';
import { linkTools } from './link-tools.js';
import type { ToolSpec } from './tool-spec.js';
import { workflowTools } from './workflow-tools.js';

/** Every tool the MCP server lists, in the order it lists them. */
export const TOOLS: readonly ToolSpec[] = [...linkTools, ...folderTools, ...insightTools, ...workflowTools];
