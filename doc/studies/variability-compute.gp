# doc/studies/variability-compute.gp: HPL's Gflops on the homogeneous
# machine and with node variability (3% spread, 1% of the nodes at 80%;
# mean and 95% interval of 10 seeds), 256 and 1,024 ranks of 0.1 Gflop/s
# cores, N = 20,000 (examples/studies/variability-compute*.toml).
# From the studies' means.csv, copied here:  cd doc/studies && gnuplot variability-compute.gp
set datafile separator ","
set key bottom right
set logscale x 2
set xrange [180:1450]
set xtics ("256" 256, "1,024" 1024)
set yrange [0:26]
set xlabel "ranks (16x16, 32x32; 1,024 sampled: --iterations 9 --samples 4)"
set ylabel "Gflops"
set title "Node variability, compute-bound: 0.1 Gflop/s cores, N = 20,000"
set grid ytics
do for [t in "svg png"] {
  if (t eq "svg") { set terminal svg size 640,420 dynamic font "sans,12" } else { set terminal pngcairo size 640,420 font "sans,10" }
  set output "variability-compute." . t
  plot "variability-compute-homogeneous-means.csv" every ::1 using ($1*$2):6 with points pt 7 ps 1.2 title "homogeneous", \
       "variability-compute-means.csv" every ::1 using ($1*$2*1.06):6:7 with yerrorbars pt 5 ps 1 title "3% spread, 1% of the nodes at 80% (10 seeds, 95%)"
}
