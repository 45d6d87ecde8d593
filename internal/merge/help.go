package merge

// Help is httpslab merge's description, as --help shows it.
const Help = `merge combines the --json results of bench's workers (bench --workers N
--index I, on one machine or many) into the result of the whole run, and
prints it as bench does: text, or --json (the same schema as bench's), --csv
or --html.

The merge is exact: counts, status codes and errors are summed, the latency
histograms are merged bucket by bucket (HdrHistogram), so the percentiles are
those of every request of every worker, and each second of the run is lined
up by wall-clock time (corrected by each host's clock offset when chronyc knew
every one), so that workers started a few hundred milliseconds apart add up
second by second. The report says how far apart the workers started, and any
histogram value a merge could not hold.

merge refuses results of different configurations (their config_hash, which
bench writes, differs), a worker missing or given twice, and workers mixed
with runs on their own. --fail-if is checked on the merged result, with
bench's exit codes (3 when a condition holds).`

// Example is httpslab merge's examples, as --help shows them.
const Example = `  httpslab merge worker-0.json worker-1.json worker-2.json
  httpslab merge w*.json --json > run.json
  httpslab merge w*.json --fail-if 'p99>200ms' --fail-if 'errors>0.1%'`
