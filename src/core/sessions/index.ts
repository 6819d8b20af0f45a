export { listSessions, listSessionsSql, listTurns, getTurn, type SessionListItem, type ListSessionsInput, type ListTurnsInput, type TimelineTurn, type TurnDecision, type TurnDetail, type Page } from './sessions';
export { statsOverview, type StatsOverview, type StatsOverviewInput } from '../gate/overview';
