# doc/studies/seed001-pruning.gp: seed 001's figure 5.3 again. HPL's Gflops
# on 512 single-core 1 Gflop/s nodes, N = 50,000, on the fat tree
# 2;16,32;1,T;1,1 pruned from T = 16 top switches to 1, links of 10 Mb/s
# (left) and 10 Gb/s (right), the ranks placed sequentially or at random
# (full runs, --hpl-code free: examples/studies/seed001-pruning.toml and
# seed001-pruning-random.toml, seed 1; at 10 Mb/s, the mean and 95%
# interval of seeds 2-4 too: seed001-pruning-random-seeds.toml). From the
# studies' means.csv, copied here:
#   cd doc/studies && gnuplot seed001-pruning.gp
# (sed takes T out of the quoted platform spec, whose commas CSV keeps)
rows(f) = sprintf("< sed -n 's/^\\(10[GM]bps\\),\"fattree:2;16,32;1,\\([0-9]*\\);1,1\",[0-9]*,\\([0-9.]*\\),.*/\\1 \\2 \\3/p' %s | sort -k1,1 -k2,2n", f)
seeds(f) = sprintf("< sed -n 's/^\"fattree:2;16,32;1,\\([0-9]*\\);1,1\",[0-9]*,\\([0-9.]*\\),\\([0-9.]*\\),.*/\\1 \\2 \\3/p' %s", f)
bw(want) = (strcol(1) eq want) ? $3 : NaN
set key bottom right
set xrange [0:17]
set xtics 1,1,16
set xlabel "top switches T (fattree:2;16,32;1,T;1,1)"
set ylabel "Gflops"
set grid ytics
do for [t in "svg png"] {
  if (t eq "svg") { set terminal svg size 960,420 dynamic font "sans,12" } else { set terminal pngcairo size 960,420 font "sans,10" }
  set output "seed001-pruning." . t
  set multiplot layout 1,2 title "Seed 001's fat-tree pruning again: 512 ranks, N = 50,000, full runs"
  set title "links of 10 Mb/s"
  set yrange [0:*]
  plot rows("seed001-pruning-means.csv") using 2:(bw("10Mbps")) with linespoints pt 7 title "sequential placement", \
       rows("seed001-pruning-random-means.csv") using 2:(bw("10Mbps")) with linespoints pt 5 title "random placement", \
       seeds("seed001-pruning-random-seeds-means.csv") using 1:2:3 with yerrorbars pt 6 lc rgb "black" title "random, seeds 2-4 (95%)"
  set title "links of 10 Gb/s"
  plot rows("seed001-pruning-means.csv") using 2:(bw("10Gbps")) with linespoints pt 7 title "sequential placement", \
       rows("seed001-pruning-random-means.csv") using 2:(bw("10Gbps")) with linespoints pt 5 title "random placement"
  unset multiplot
}
