import { z } from 'zod';

/** The folder resource: the body a write takes and the shapes the routes answer with. */

const nameSchema = z
  .string()
  .transform((name) => name.trim())
  .pipe(
    z
      .string()
      .min(1, 'Folder names are 1 to 100 characters')
      .max(100, 'Folder names are 1 to 100 characters'),
  );
export const folderBody = z.object({ name: nameSchema }).strict();
export const folderSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  linkCount: z.number().int(),
  createdAt: z.string(),
});
export const renamedSchema = z.object({ id: z.uuid(), name: z.string(), createdAt: z.string() });
export const deletedSchema = z.object({ deleted: z.literal(true) });

export type Folder = z.infer<typeof folderSchema>;
