/**
 * Seconds a client is told to wait when the database is away: about how long a blip lasts. Its own file so
 * that the engine, which loads neither Fastify nor Zod, shares it with errors.ts.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
