# doc/scale.gp -- gnuplot doc/scale.gp (from doc/): doc/scale.svg and .png
# Wall time and peak memory (Pss) against MPI ranks and against N, log-log,
# from scale.dat: full runs, extrapolated whole runs, and what the cut-short
# runs themselves cost.
set logscale xy
set grid
set key top left Left reverse font ",8"
set format y "10^{%L}"
set format x "10^{%L}"
sel(k, v) = (column(5) == k ? v : NaN)
do for [fmt in "svg png"] {
  if (fmt eq "svg") { set terminal svg size 1000,760 font ",11" } else { set terminal pngcairo size 1000,760 font ",10" }
  set output "scale.".fmt
  set multiplot layout 2,2 title "SimBLAS: simulating HPL on a 2-core, 24 GB machine (ladder, Stampede 2013, a 2026 #1-class run)"
  do for [x = 1:2] {
    if (x == 1) { set xlabel "MPI ranks"; set xrange [30:100000] } else { set xlabel "N"; set xrange [10000:100000000] }
    set ylabel "wall time (s)"
    set yrange [1:1e8]
    plot "scale.dat" using x:(sel(0, $3)) with points pt 7 ps 1.2 title "full run", \
         "" using x:(sel(1, $3)) with points pt 6 ps 1.4 title "whole run, extrapolated", \
         "" using x:(sel(2, $3)) with points pt 4 ps 1.2 title "cut short (K iterations / allocations)"
    set ylabel "peak memory, Pss (MB)"
    set yrange [10:30000]
    plot "scale.dat" using x:(sel(0, $4)) with points pt 7 ps 1.2 title "full run", \
         "" using x:(sel(1, $4)) with points pt 6 ps 1.4 title "sampled run", \
         "" using x:(sel(2, $4)) with points pt 4 ps 1.2 title "cut short", \
         24000 with lines dt 2 lc rgb "gray" title "the machine's 24 GB"
  }
  unset multiplot
}
