"""simblas_hpl: build HPL against SimBLAS and simulate it with SimGrid/SMPI.

The `simblas-hpl` command (tools/simblas-hpl.in) is a launcher of this
package; doc/user-guide.md is the manual.  One job per module:

  cli             the command line: the top parser, one module per verb in
                  verbs/ (build, run, info, study, validate; a new verb is a
                  new module there)
  plan            RunOptions (what a run asks for) -> RunPlan (validated,
                  every decision taken): the one place run options are checked
  launch          a RunPlan and a run directory -> a RunResult: the run's
                  files, smpirun's command and environment, the process
  engine          many runs: run_points, the points handed to an engine
  points          a point: a directory holding its RunPlan, its files and
                  state; which of many are left to run
  worker          the worker: runs points in its own process
                  (python -m simblas_hpl.worker)
  local_engine    the points run by a pool of worker processes
  slurm_engine    the points run as a Slurm job array, --wait
  slurm           Slurm's commands and answers: sbatch options, the queue,
                  why a job waits
  study           studies: a TOML file of runs -> its points, each planned
                  (the verb: verbs/study.py)
  study_dir       a study's directory: written, found, its points' status
  study_collect   a study's results.csv and means.csv
  study_stats     replicates' means and 95% t intervals (scipy's quantile)
  study_plot      a study's gnuplot figures (and tune's, through render)
  monitor         watching a running simulation: PssSampler, Progress
  results         HPL's output parsed, the summary, the JSON and CSV writers
  extrapolation   --iterations/--samples: the full run estimated from the
                  passes, its uncertainty (doc/scale.md)
  platforms       fat-tree specs, platform XML, hostfiles
  variability     node variability: the hosts' speed factors
  hpldat          HPL.dat and HPL's options
  units           SimGrid's bandwidth and latency units, number formats
  memory          fold blocks, SMPI's shared-malloc block, huge pages,
                  address space, the simulator's allocator
  model           what simblas-hpl reads of a SimBLAS model file
  hplbuild        building HPL: source, patches, make, the check run
  realrun         real HPL runs: xhpl-mpi under Open MPI's mpirun
  validate_configs
                  validate's (and refine's) HPL configurations: --config,
                  the default set, make check's
  validate_machine
                  the machine validate and refine measure on: its CPU, the
                  load of other processes on its cores
  validate_real   validate's real runs: interleaved rounds, their summary,
                  an earlier report's (--real)
  validate_report validate's report written out: table, CSV, gnuplot figure
  validate_score  each simulation against the real runs: errors, ranking,
                  the report (JSON)
  validate_sim    validate's simulations: each configuration on one host of
                  this machine's cores
  validate_speed  the machine's reference speed against the models': the
                  calibrator's probe between real runs, each model's drift
  builds          the builds on disk: manifests, listing, the default
  locations       where SimBLAS is installed (configured.py, the environment)
  installed       what `make` configured (configured.py): the bottom of the package
  errors          CliError and the one-line messages
  files           reading and writing files
Python 3 standard library only (study collect takes Student's t quantiles
from scipy when it is installed).
"""

VERSION = "0.1.0"
PROG = "simblas-hpl"
