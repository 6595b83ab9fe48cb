# doc/scale.gp -- gnuplot doc/scale.gp (from doc/): doc/scale.svg and .png
set logscale xy
set xlabel "MPI ranks"
set key bottom right font ",9"
set grid
set xrange [30:100000]
do for [fmt in "svg png"] {
  if (fmt eq "svg") { set terminal svg size 800,500 } else { set terminal pngcairo size 800,500 }
  set output "scale.".fmt
  set multiplot layout 1,2 title "SimBLAS: HPL simulation cost on a 2-core, 24 GB machine"
  set ylabel "wall time (s)"
  plot "scale.dat" using 1:2 with points pt 7 ps 1.2 title "wall (Stampede, rung 5: extrapolated)"
  set ylabel "peak memory (MB)"
  plot "scale.dat" using 1:3 with points pt 5 ps 1.2 title "peak memory (Pss)"
  unset multiplot
}
