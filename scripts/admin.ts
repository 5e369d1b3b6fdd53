/**
 * Operator CLI: `npm run admin -- <command> [--flags] [--json]` (in the image: `node dist/scripts/admin.js`).
 * `--help` on the tool, a group of commands or one command prints help without touching the
 * database. Each command prints a short line, or one JSON object with --json. Exit codes: 0 done,
 * 1 refused (unknown account or group, a name taken, a verification that failed), 2 a usage error.
 * The commands are the table in scripts/admin/commands.ts.
 */
import { ConfigError } from '../src/config';
import { AdminContext, AdminError, checkFlags, parseArgv, recordCliChange, UsageError, type AdminCommand } from './admin/cli';
import { COMMANDS } from './admin/commands';

const TOOL = 'npm run admin --';

function overview(commands: AdminCommand[], heading: string): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    heading,
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Help on one command: ${TOOL} <command> --help. Every command takes --json (one JSON object out).`,
    'Configuration comes from the environment (DATABASE_URL, REDIS_URL, ENCRYPTION_KEY, HMAC_SECRET; see .env.example).',
  ].join('\n');
}

function commandHelp(command: AdminCommand): string {
  const flags = Object.entries(command.flags ?? {});
  const usage = [
    TOOL,
    command.name,
    ...(command.args ?? []).map((a) => `<${a.name}>`),
    ...flags.map(([name, spec]) => {
      const flag = `--${name}${spec.value ? ` ${spec.value}` : ''}`;
      return spec.required ? flag : `[${flag}]`;
    }),
    '[--json]',
  ].join(' ');
  const width = Math.max(
    8,
    ...flags.map(([name, spec]) => `--${name}${spec.value ? ` ${spec.value}` : ''}`.length),
    ...(command.args ?? []).map((a) => a.name.length + 2),
  );
  return [
    `${command.name}: ${command.summary}`,
    '',
    `usage: ${usage}`,
    ...((command.args ?? []).length ? ['', ...(command.args ?? []).map((a) => `  ${`<${a.name}>`.padEnd(width)}  ${a.help}`)] : []),
    ...(flags.length
      ? [
          '',
          ...flags.map(
            ([name, spec]) =>
              `  ${`--${name}${spec.value ? ` ${spec.value}` : ''}`.padEnd(width)}  ${spec.required ? '(required) ' : ''}${spec.help}`,
          ),
        ]
      : []),
    ...(command.notes?.length ? ['', ...command.notes] : []),
  ].join('\n');
}

/** The command named by the leading words (two words, or one for a group), and the words after it. */
function lookUp(words: string[]): { command?: AdminCommand; group?: AdminCommand[]; rest: string[] } {
  const command = COMMANDS.find((c) => c.name === words.slice(0, 2).join(' '));
  if (command) return { command, rest: words.slice(2) };
  const group = COMMANDS.filter((c) => c.name.split(' ')[0] === words[0]);
  return { group: group.length ? group : undefined, rest: words.slice(1) };
}

async function main(argv: string[]): Promise<number> {
  const { words, flags } = parseArgv(argv);
  const asksHelp = flags.help === true || words[0] === 'help';
  const named = words[0] === 'help' ? words.slice(1) : words;
  if (named.length === 0) {
    console.log(overview(COMMANDS, `Model gateway admin CLI: ${TOOL} <command> [--flags] [--json]`));
    return 0;
  }
  const { command, group, rest } = lookUp(named);
  if (!command) {
    if (group && (asksHelp || named.length === 1)) {
      console.log(overview(group, `${named[0]} commands:`));
      return asksHelp ? 0 : 2;
    }
    throw new UsageError(`unknown command "${named.join(' ')}"; ${TOOL} --help lists the commands`);
  }
  if (asksHelp) {
    console.log(commandHelp(command));
    return 0;
  }
  checkFlags(command, flags, rest);
  const context = new AdminContext({ json: flags.json === true });
  try {
    await command.run(context, { args: rest, flags });
    await recordCliChange(context, command, { args: rest, flags });
  } finally {
    await context.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    const known = error instanceof UsageError || error instanceof AdminError || error instanceof ConfigError;
    const message = known ? error.message : `admin: ${error.message.split('\n')[0]}`;
    if (process.argv.includes('--json')) console.log(JSON.stringify({ error: message }));
    else console.error(message);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
