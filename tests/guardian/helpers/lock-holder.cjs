// Holds the plugin's lock on a memory file for a while, as the plugin would during a write,
// and reports whether anyone changed the file while it held the lock.
// Usage: node lock-holder.cjs <file> <holdMs>
const fs = require('node:fs');
const lockfile = require('proper-lockfile');

const [file, holdMs] = [process.argv[2], Number(process.argv[3])];
const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);

lockfile.lock(file, { realpath: false, stale: 5000 }).then(async (release) => {
  const initial = read();
  process.stdout.write('locked\n');
  let changed = false;
  const end = Date.now() + holdMs;
  while (Date.now() < end) {
    if (read() !== initial) changed = true;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (read() !== initial) changed = true;
  await release();
  process.stdout.write(changed ? 'changed-under-lock\n' : 'unchanged-under-lock\n');
});
