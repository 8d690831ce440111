/** Opens the database the way the app starts (migrations on), from a given migrations folder, and reports. */
import { childArgs, emit, openTarget, runChild, type ChildTarget } from "./common";

runChild(async () => {
  const args = childArgs<ChildTarget>();
  emit("opening", { pid: process.pid });
  const handle = await openTarget({ ...args, migrate: true });
  emit("migrated");
  await handle.close();
});
