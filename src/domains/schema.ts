import { z } from 'zod';

/** The Domain resource (issue 17): the body that adds one and the shape every route answers. */

export const domainBody = z
  .object({
    hostname: z
      .string()
      .min(1)
      .max(253)
      .describe(
        'a domain name such as links.example.com; stored lower-case, international names as punycode',
      ),
  })
  .strict();
export const domainSchema = z
  .object({
    id: z.uuid(),
    hostname: z.string(),
    verified: z.boolean(),
    verification: z
      .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
      .describe('the DNS record to publish; verify looks it up'),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
  })
  .meta({ id: 'Domain' });

export type Domain = z.infer<typeof domainSchema>;
