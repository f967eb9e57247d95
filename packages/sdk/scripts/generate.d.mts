export const TYPES_FILE: string;
export function renderTypes(document: unknown): Promise<string>;
export function fetchDocument(baseUrl: string): Promise<unknown>;
export function committedTypes(): string;
