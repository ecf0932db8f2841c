# Plots for scripts/scaling (gnuplot -e "dir='…'; out='…'" scripts/scaling.gp).
# Reads dir/{strong,weak}_{weights,points,grid}.csv, the rows of
# bench_mpi_partition --csv: 3 ranks, 5 per_rank, 8 wall_s, 10 compute_cpu_s,
# 11 mpi_wall_s, 15 mem_growth_mib, 17 input_mib.
set datafile separator ','
set terminal pngcairo noenhanced size 1500,460 font 'Liberation Sans,10'
set logscale xy
set grid
set key outside below center horizontal
set format y '%g'
set format x '%g'
cases = 'weights points grid'
titles = '"partition_weights, spiky 1-D weights" "partition_points, clustered 3-D points" "decompose_grid, spiky 2-D grid, 64x64"'

# Time against ranks: wall, the compute CPU and the MPI wall time of the
# slowest rank, and the ideal from the 1-rank compute time.
do for [scaling in 'strong weak'] {
  set output sprintf('%s/scaling_%s.png', out, scaling)
  set multiplot layout 1,3 title sprintf('%s scaling: seconds per call against ranks 1, 2, 4, 8 (2 cores shared; median, slowest rank)', scaling)
  unset xlabel
  set ylabel 'seconds'
  set xrange [0.8:10]
  set xtics ('1' 1, '2' 2, '4' 4, '8' 8)
  do for [i = 1:3] {
    f = sprintf('%s/%s_%s.csv', dir, scaling, word(cases, i))
    stats f using 10 every ::0::0 nooutput
    one = STATS_min
    set title word(titles, i)
    plot f using 3:8 with linespoints lw 2 pt 7 title 'wall', \
         f using 3:10 with linespoints lw 2 pt 5 title 'compute (CPU)', \
         f using 3:($11 > 0 ? $11 : NaN) with linespoints lw 2 pt 9 title 'in MPI calls (wall)', \
         f using 3:(scaling eq 'strong' ? one / $3 : one) with lines dt 2 lc rgb 'gray40' title 'ideal compute'
  }
  unset multiplot
}

# Memory: what one call adds per rank, against the points/cells per rank
# (strong runs) and against ranks at a fixed size per rank (weak runs).
set output sprintf('%s/scaling_memory.png', out)
set multiplot layout 1,2 title 'peak memory a call adds per rank (VmHWM after − VmRSS before; median, largest rank)'
set title 'strong scaling: against the cells or points per rank'
unset xlabel
set ylabel 'MiB'
set autoscale x
set xtics auto
plot for [i = 1:3] sprintf('%s/strong_%s.csv', dir, word(cases, i)) using 5:15 with linespoints lw 2 lc i title word(cases, i), \
     for [i = 1:3] sprintf('%s/strong_%s.csv', dir, word(cases, i)) using 5:17 with lines dt 2 lc i title word(cases, i).' input (not counted)'
set title 'weak scaling: against ranks, size per rank fixed'
set xrange [0.8:10]
set xtics ('1' 1, '2' 2, '4' 4, '8' 8)
plot for [i = 1:3] sprintf('%s/weak_%s.csv', dir, word(cases, i)) using 3:15 with linespoints lw 2 lc i title word(cases, i)
unset multiplot
