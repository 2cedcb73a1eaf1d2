// `node --import ./register.mjs`: the process sees the provider registry with one provider added (hooks.mjs).
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
