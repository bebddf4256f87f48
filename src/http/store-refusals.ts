// What the owner's page and the command line answer when the store finds no row to act on.
import { ApiError } from "./problem.ts";

export const emailTaken = () => new ApiError("email_taken", "An account with this email already exists.");

export const noSuchKey = (id: string) => new ApiError("key_not_found", `No API key with id ${id}.`);
