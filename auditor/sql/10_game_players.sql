-- view: game_players
-- One row per player per game: where the player sat, whose side they were on, and how the
-- game ended for that side. The base of every per-player statistic.
--
-- Built from the raw `games` and `settlements` views and the `rule_sets` table (one row per
-- distinct rule set of the dataset, made by the loader from auditor.rules, so that the SQL
-- never re-derives what a preset means). In partnership presets a player's side is the team
-- named for them in the Teams tag; elsewhere (or when a player is in no team) it is the player.
--
-- column: game_id     the game's key (see games)
-- column: game        the game's name: its GameId tag, else FILE#N
-- column: event       Event tag
-- column: date        Date tag as a date (null when absent or partial)
-- column: preset      the preset the game was audited under
-- column: partnership points and scores belong to teams in this game's rule set
-- column: top_bid     the rule set's top bid when it has a name or a special rule (smudge; moon in setback and tenpoint52), else null
-- column: moon        the rule set's top bid is a moon (smudge=moon, tenpoint52)
-- column: points_in_play what all the points of a hand are worth together: 4, 7 or 10 (ten-point)
-- column: player      the player
-- column: seat        seat in clockwise order from the first name of the Players tag, from 1
-- column: team        the player's team in partnership presets (null elsewhere)
-- column: side        who scores for the player: the team in partnership presets, else the player
-- column: finished    somebody went out on the recomputed scores
-- column: won         the player's side won the game (recomputed winner)
-- column: settles     the rule set has a settlement (auction: settlement=club, not partnership)
-- column: settlement  units the side won (+) or paid (-) in the settlement; null if the game has none or is unfinished
CREATE VIEW game_players AS
WITH seated AS (
    -- two unnests side by side in one SELECT pair up element by element, which is much
    -- cheaper than a lateral unnest WITH ORDINALITY
    SELECT g.game_id, g.game, g.event, g.date, g.preset, g.rules, g.winner,
           unnest(g.players) AS player, unnest(range(1, len(g.players) + 1)) AS seat
    FROM games AS g
),
team_parts AS (
    -- "NS: Ann Cal; EW: Bob Dee" -> one row per "NAME: MEMBERS" part
    SELECT game_id, trim(part) AS part
    FROM (SELECT game_id, unnest(string_split(teams, ';')) AS part FROM games WHERE teams IS NOT NULL)
    WHERE contains(part, ':')
),
team_of AS (
    SELECT game_id, trim(split_part(part, ':', 1)) AS team, member AS player
    FROM team_parts, unnest(string_split_regex(trim(substr(part, strpos(part, ':') + 1)), '\s+')) AS m(member)
    WHERE member <> ''
),
sided AS (
    SELECT s.*, coalesce(r.partnership, false) AS partnership, coalesce(r.settles, false) AS settles, r.top_bid,
           coalesce(r.moon, false) AS moon, r.points_in_play,
           CASE WHEN r.partnership THEN t.team END AS team
    FROM seated AS s
    LEFT JOIN rule_sets AS r ON r.rules = s.rules
    -- a player named in two teams (a broken Teams tag) keeps the first: any_value below
    LEFT JOIN (SELECT game_id, player, any_value(team) AS team FROM team_of GROUP BY ALL) AS t
        ON t.game_id = s.game_id AND t.player = s.player
)
SELECT d.game_id, d.game, d.event, d.date, d.preset, d.partnership, d.top_bid, d.moon, d.points_in_play, d.player,
       CAST(d.seat AS INTEGER) AS seat, d.team, coalesce(d.team, d.player) AS side,
       d.winner IS NOT NULL AS finished,
       coalesce(d.winner = coalesce(d.team, d.player), false) AS won,
       d.settles,
       CASE WHEN d.settles AND d.winner IS NOT NULL THEN coalesce(st.amount, 0) END AS settlement
FROM sided AS d
LEFT JOIN settlements AS st ON st.game_id = d.game_id AND st.side = coalesce(d.team, d.player);
