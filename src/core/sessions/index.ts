export {
  listSessions,
  listSessionsPlanSql,
  getSession,
  listTurns,
  getTurn,
  contextOfTurn,
  type ListSessionsInput,
  type ListTurnsInput,
} from './sessions';
export { statsOverview, type StatsOverview, type StatsOverviewInput } from '../gate/overview';
