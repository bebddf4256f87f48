// The kinds of value a setting (an environment variable) takes, shared by the service's settings
// (config.ts) and the settings a platform's own reader declares beside it (platforms/<name>/own-reader.ts).
import { z } from "zod";

export const positiveInt = z.coerce.number().int().positive();
export const httpUrl = z.url({ protocol: /^https?$/ });
